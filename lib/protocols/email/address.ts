import type { MailRecipient } from '@/lib/email-to-sms/send';
import { toE164 } from '@/lib/phone-number';

export type RecipientRefusal = 'relay_denied' | 'bad_recipient';

// `14155550123`, `+14155550123`, and a sending phone as a tag: `14155550123+14155550100`. Bounded repeats only.
const LOCAL_PART = /^\+?(\d{3,15})(?:\+{1,2}(\d{3,15}))?$/;

/**
 * The SMS recipient an envelope address names: `<number>[+<sending phone>]@<domain>` for one of
 * `domains`; `relay_denied` for another domain (this server relays nothing), `bad_recipient` for a
 * local part that is not a number.
 */
export function recipientOf(address: string, domains: readonly string[]): MailRecipient | RecipientRefusal {
  const at = address.lastIndexOf('@');
  if (at < 1) return 'bad_recipient';
  const domain = address.slice(at + 1).toLowerCase();
  if (!domains.includes(domain)) return 'relay_denied';
  const match = LOCAL_PART.exec(address.slice(0, at));
  if (!match) return 'bad_recipient';
  const to = toE164(`+${match[1]}`);
  const from = match[2] === undefined ? undefined : toE164(`+${match[2]}`);
  if (!to || (match[2] !== undefined && !from)) return 'bad_recipient';
  return from === undefined || from === null ? { to } : { to, from };
}
