import type { Database, Executor } from '@/db';
import { findDevice } from '@/lib/devices/device';
import { hasOpenStream, pushToDevice } from '@/lib/devices/sessions';
import { DomainError, validationError } from '@/lib/errors';
import {
  countInboxExportReceipt,
  dropInboxExport,
  type InboxExportRow,
  latestInboxExports,
  recordInboxExport,
} from '@/lib/integrations/inbox-exports';
import { ownedPhone } from '@/lib/phones/owned';
import { iso } from '@/lib/wire';
import type { INBOX_MESSAGE_TYPES } from './schemas';

/** The longest period one export may cover. */
export const INBOX_EXPORT_MAX_DAYS = 30;

/**
 * How long after a request the app's re-sent `sms:received` count toward it. The app reads its
 * inbox and sends one webhook call per SMS, retrying each for minutes when a call fails.
 */
export const INBOX_EXPORT_COUNT_MINUTES = 15;

/** How many of a phone's latest export requests its page lists. */
export const INBOX_EXPORTS_LISTED = 10;

export type InboxMessageType = (typeof INBOX_MESSAGE_TYPES)[number];

export type InboxExportInput = {
  since: Date;
  until: Date;
  messageTypes?: InboxMessageType[];
  triggerWebhooks?: boolean;
};

export function presentInboxExport(row: InboxExportRow) {
  return {
    id: row.id,
    phone_id: row.phoneId,
    since: iso(row.since) ?? '',
    until: iso(row.until) ?? '',
    message_types: row.messageTypes.split(',') as InboxMessageType[],
    recovered: row.recovered,
    repeated: row.repeated,
    created_at: iso(row.createdAt) ?? '',
    counting_until: iso(new Date(row.createdAt.getTime() + INBOX_EXPORT_COUNT_MINUTES * 60_000)) ?? '',
  };
}

export type InboxExportWire = ReturnType<typeof presentInboxExport>;

/**
 * The `MessagesExportRequested` event's data, as the app reads it
 * (modules/receiver/events/MessagesExportRequestedEvent.kt: `since`, `until` dates, `messageTypes`
 * a comma-separated list of IncomingMessageType, `triggerWebhooks` a boolean).
 */
export function exportEventData(input: Required<InboxExportInput>): string {
  return JSON.stringify({
    since: input.since.toISOString(),
    until: input.until.toISOString(),
    messageTypes: input.messageTypes.join(','),
    triggerWebhooks: input.triggerWebhooks,
  });
}

/** The period's rules: since before until, at most INBOX_EXPORT_MAX_DAYS, not starting in the future. */
function checkPeriod(since: Date, until: Date): void {
  if (since.getTime() >= until.getTime()) throw validationError('until', 'must be after since');
  if (until.getTime() - since.getTime() > INBOX_EXPORT_MAX_DAYS * 86_400_000) {
    throw validationError('until', `the period must be at most ${INBOX_EXPORT_MAX_DAYS} days`);
  }
  if (since.getTime() > Date.now()) throw validationError('since', 'must not be in the future');
}

/**
 * Asks an SMSGate-app phone to send again every SMS its inbox received in [since, until]: the
 * event `MessagesExportRequested` on the event stream the app holds open to this server. The app
 * answers with one `sms:received` webhook call per SMS; the de-duplication of inbound messages
 * keeps what Simgate already has, so only what was missing becomes new messages (and events),
 * counted on the request (`recovered`, `repeated`). Another account's phone is 404; a phone that
 * is not paired with the app, or holds no event stream open to this server instance, is 409
 * PHONE_NOT_CONNECTED.
 */
export async function requestInboxExport(
  db: Database,
  accountId: string,
  phoneId: string,
  input: InboxExportInput,
): Promise<InboxExportWire> {
  checkPeriod(input.since, input.until);
  const phone = await ownedPhone(db, accountId, phoneId);
  const device = phone.deviceId ? await findDevice(db, phone.deviceId) : undefined;
  if (device?.kind !== 'app' || device.status !== 'activated') {
    throw new DomainError(
      'PHONE_NOT_CONNECTED',
      'Only a phone paired with the SMSGate app can send its inbox again; this phone is not.',
    );
  }
  if (!hasOpenStream(device.id)) {
    throw new DomainError(
      'PHONE_NOT_CONNECTED',
      'The phone holds no event stream open to this server: open the SMSGate app with "SSE only" chosen and try again once it shows as online.',
    );
  }
  const full = {
    since: input.since,
    until: input.until,
    messageTypes: input.messageTypes?.length ? [...new Set(input.messageTypes)] : ['SMS' as const],
    triggerWebhooks: input.triggerWebhooks ?? true,
  };
  const row = await recordInboxExport(db, accountId, {
    phoneId: phone.id,
    since: full.since,
    until: full.until,
    messageTypes: full.messageTypes,
  });
  // Sent after the request is stored: the first re-sent SMS must find it to be counted.
  if (pushToDevice(device.id, 'MessagesExportRequested', exportEventData(full)) === 0) {
    await dropInboxExport(db, row.accountId, row.id);
    throw new DomainError('PHONE_NOT_CONNECTED', 'The phone’s event stream closed: try again once it is online.');
  }
  return presentInboxExport(row);
}

/** The phone's latest export requests, newest first (404 for another account's phone). */
export async function listInboxExports(db: Database, accountId: string, phoneId: string): Promise<InboxExportWire[]> {
  await ownedPhone(db, accountId, phoneId);
  const rows = await latestInboxExports(db, accountId, phoneId, INBOX_EXPORTS_LISTED);
  return rows.map(presentInboxExport);
}

/**
 * Counts a received SMS toward the phone's latest export request still counting whose period
 * holds its receive time: `created` (the de-duplication made a new message) is recovered, else
 * repeated. An SMS no request covers changes nothing.
 */
export async function countExportedInbound(
  executor: Executor,
  phone: { id: string; accountId: string },
  receivedAt: Date | undefined,
  created: boolean,
): Promise<void> {
  if (!receivedAt) return;
  await countInboxExportReceipt(executor, phone, receivedAt, created, INBOX_EXPORT_COUNT_MINUTES);
}
