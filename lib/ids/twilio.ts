import { createHash } from 'node:crypto';

/**
 * Twilio's identifiers for Simgate's rows: two letters and 32 lowercase hex digits. A message's SID
 * is its uuid's digits (so it names the message both ways); an account's and a group's are digests of
 * their ids, the same forever (they end up in integrators' configuration), and say nothing of the ids.
 */
const HEX32 = /^[0-9a-f]{32}$/;

function digestOf(kind: string, id: string | number): string {
  return createHash('sha256').update(`simgate-twilio:${kind}:${id}`).digest('hex').slice(0, 32);
}

/** `AC…`: the account's Account SID, the username of Twilio's Basic auth. */
export function accountSidOf(accountId: string): string {
  return `AC${digestOf('account', accountId)}`;
}

/** `MG…`: a phone group's MessagingServiceSid: sending through it sends through the group. */
export function messagingServiceSidOf(groupId: number): string {
  return `MG${digestOf('group', groupId)}`;
}

/** `SM…`: a message's SID, its uuid without dashes. */
export function messageSidOf(messageId: string): string {
  return `SM${messageId.replaceAll('-', '').toLowerCase()}`;
}

/** The message uuid a `SM…` SID names, or undefined for anything else. */
export function messageIdOfSid(sid: string): string | undefined {
  const hex = sid.startsWith('SM') ? sid.slice(2) : '';
  if (!HEX32.test(hex)) return undefined;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export const ACCOUNT_SID = /^AC[0-9a-f]{32}$/;
export const MESSAGING_SERVICE_SID = /^MG[0-9a-f]{32}$/;
export const MESSAGE_SID = /^SM[0-9a-f]{32}$/;
