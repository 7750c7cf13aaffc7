import type { Executor } from '@/db';
import { DomainError, validationError } from '@/lib/errors';
import { groupIdsOf } from '@/lib/groups/read';
import { cancelMessage } from '@/lib/messages/cancel';
import { MAX_CONTENT_LENGTH, MIN_TTL_SECONDS } from '@/lib/messages/limits';
import { type MessageRowsQuery, messageRowsNewestFirst } from '@/lib/messages/list';
import { ownedMessage } from '@/lib/messages/owned';
import { submitMessage } from '@/lib/messages/pipeline';
import type { MessageRow } from '@/lib/messages/present';
import { redactMessageContent } from '@/lib/messages/redact';
import { toE164 } from '@/lib/phone-number';
import { phoneIdOfNumber } from '@/lib/phones/owned';
import { withTransaction } from '@/lib/transactions';
import { twilioCallbackTarget } from './callbacks';
import { twilioError } from './errors';
import { accountSidOf, MESSAGE_SID, messageIdOfSid, messageSidOf, messagingServiceSidOf } from './ids';
import type { CreateMessageInput, ListMessagesQuery, MessageResource, TwilioStatus } from './schemas';
import { TWILIO_VALIDITY_MAX_SECONDS } from './schemas';

export const API_VERSION = '2010-04-01';

/** Twilio's date format (RFC 2822, UTC): `Fri, 27 Nov 2026 10:24:09 +0000`. */
export function rfc2822(date: Date | null | undefined): string | null {
  return date ? date.toUTCString().replace('GMT', '+0000') : null;
}

export function accountBase(accountId: string): string {
  return `/${API_VERSION}/Accounts/${accountSidOf(accountId)}`;
}

/**
 * Simgate's states onto Twilio's: a queued message not yet due is `scheduled`, one a phone holds
 * `sending`; an expired one `failed` (30001, as Twilio's messages past their ValidityPeriod), a
 * failure the recipient's side reported after sending `undelivered`.
 */
export function twilioStatusOf(row: Pick<MessageRow, 'status' | 'sendAt' | 'error'>, now = new Date()): TwilioStatus {
  switch (row.status) {
    case 'queued':
      return row.sendAt.getTime() > now.getTime() ? 'scheduled' : 'queued';
    case 'dispatched':
    case 'cancelling':
      return 'sending';
    case 'cancelled':
      return 'canceled';
    case 'expired':
      return 'failed';
    case 'failed':
      return /deliver/i.test(row.error ?? '') ? 'undelivered' : 'failed';
    default:
      return row.status;
  }
}

/**
 * Android's results onto Twilio's 30xxx delivery codes: no service or radio off at the sending
 * phone 30003 (unreachable), the phone's SMS limit 30001 (queue overflow), like a message past its
 * validity, a failed delivery report 30005 (unknown destination handset), anything else 30008.
 */
export function twilioErrorCodeOf(row: Pick<MessageRow, 'status' | 'error'>): number | null {
  if (row.status === 'expired') return 30001;
  if (row.status !== 'failed') return null;
  const said = (row.error ?? '').toUpperCase();
  if (said.includes('RADIO_OFF') || said.includes('NO_SERVICE')) return 30003;
  if (said.includes('LIMIT_EXCEEDED')) return 30001;
  if (said.includes('DELIVER')) return 30005;
  return 30008;
}

/** A message in Twilio's shape. */
export function presentTwilioMessage(row: MessageRow): MessageResource {
  const sid = messageSidOf(row.id);
  const base = accountBase(row.accountId);
  const errorCode = twilioErrorCodeOf(row);
  return {
    sid,
    account_sid: accountSidOf(row.accountId),
    api_version: API_VERSION,
    messaging_service_sid: row.fromGroup === null ? null : messagingServiceSidOf(row.fromGroup),
    to: row.to,
    from: row.from,
    body: row.kind === 'sim_check' ? '' : row.content,
    status: twilioStatusOf(row),
    direction: row.direction === 'inbound' ? 'inbound' : row.originKind ? 'outbound-reply' : 'outbound-api',
    num_segments: String(row.segments),
    num_media: '0',
    error_code: errorCode,
    error_message:
      errorCode === null ? null : (row.error ?? (row.status === 'expired' ? 'Validity period expired' : null)),
    price: null,
    price_unit: null,
    date_created: rfc2822(row.createdAt),
    date_sent: ['sent', 'delivered', 'received'].includes(row.status) ? rfc2822(row.updatedAt) : null,
    date_updated: rfc2822(row.updatedAt),
    uri: `${base}/Messages/${sid}.json`,
    subresource_uris: { media: `${base}/Messages/${sid}/Media.json` },
  };
}

/** The path AccountSid must be the authenticated account's: another's answers 404, as Twilio does. */
export function assertOwnAccountSid(accountId: string, pathSid: string): void {
  if (pathSid !== accountSidOf(accountId)) {
    throw twilioError('NOT_FOUND', 20404, `The requested resource /Accounts/${pathSid} was not found`);
  }
}

/** `SM….json` → the message's uuid, or 404. */
export function messageIdOfPath(segment: string): string {
  const sid = segment.endsWith('.json') ? segment.slice(0, -'.json'.length) : segment;
  const id = MESSAGE_SID.test(sid) ? messageIdOfSid(sid) : undefined;
  if (!id) throw twilioError('NOT_FOUND', 20404, `The requested resource ${sid} was not found`);
  return id;
}

async function groupOfService(executor: Executor, accountId: string, serviceSid: string): Promise<number> {
  const group = (await groupIdsOf(executor, accountId)).find((id) => messagingServiceSidOf(id) === serviceSid);
  if (group === undefined) throw twilioError('NOT_FOUND', 21701, `The Messaging Service ${serviceSid} does not exist.`);
  return group;
}

async function ownedSender(executor: Executor, accountId: string, from: string): Promise<string> {
  const number = toE164(from);
  const phoneId = number ? await phoneIdOfNumber(executor, accountId, number) : undefined;
  if (!number || !phoneId) {
    throw twilioError('VALIDATION_ERROR', 21606, `The From phone number ${from} is not one of the account’s phones.`);
  }
  return number;
}

function sendAtOf(input: CreateMessageInput): Date | undefined {
  if (input.SendAt === undefined) {
    if (input.ScheduleType !== undefined) throw validationError('SendAt', 'required with ScheduleType');
    return undefined;
  }
  if (input.ScheduleType !== 'fixed') throw validationError('ScheduleType', 'must be fixed with SendAt');
  const at = new Date(input.SendAt);
  if (Number.isNaN(at.getTime())) throw validationError('SendAt', 'not an ISO 8601 time');
  return at;
}

/** What Simgate's send calls a field, as Twilio names the parameter. */
const PARAMETER_OF: Record<string, string> = {
  to: 'To',
  from: 'From',
  content: 'Body',
  send_at: 'SendAt',
  ttl_s: 'ValidityPeriod',
  status_callback_url: 'StatusCallback',
  from_group: 'MessagingServiceSid',
};

/** A validation error of the shared send, renamed to Twilio's parameters (its Twilio code follows the name). */
function inTwilioTerms(error: unknown): unknown {
  if (!(error instanceof DomainError) || error.code !== 'VALIDATION_ERROR' || !error.errors) return error;
  const errors = error.errors.map((e) => ({ ...e, path: PARAMETER_OF[e.path] ?? e.path }));
  const detail = errors.map((e) => `${e.path}: ${e.message}`).join('; ');
  return new DomainError('VALIDATION_ERROR', detail, { errors, extra: error.extra, headers: error.headers });
}

/**
 * POST Messages.json: one message through Simgate's send (credits, opt-outs, country rules,
 * pacing, scheduling), from a phone of the account or through the group a MessagingServiceSid names.
 */
export async function createTwilioMessage(
  executor: Executor,
  accountId: string,
  input: CreateMessageInput,
): Promise<MessageResource> {
  if (input.MediaUrl !== undefined) {
    throw twilioError('VALIDATION_ERROR', 21620, 'MediaUrl: MMS is not supported; send text only.');
  }
  if (!input.Body?.length) throw twilioError('VALIDATION_ERROR', 21602, 'Message body is required.');
  if (input.Body.length > MAX_CONTENT_LENGTH) {
    throw twilioError(
      'VALIDATION_ERROR',
      21617,
      `The concatenated message body exceeds the ${MAX_CONTENT_LENGTH} character limit.`,
    );
  }
  if (!toE164(input.To))
    throw twilioError('VALIDATION_ERROR', 21211, `The 'To' number ${input.To} is not a valid phone number.`);
  if (input.From === undefined && input.MessagingServiceSid === undefined) {
    throw twilioError('VALIDATION_ERROR', 21603, "A 'From' phone number or a 'MessagingServiceSid' is required.");
  }
  const validity = input.ValidityPeriod === undefined ? undefined : Number(input.ValidityPeriod);
  if (validity !== undefined && (validity < 1 || validity > TWILIO_VALIDITY_MAX_SECONDS)) {
    throw validationError('ValidityPeriod', `must be 1 to ${TWILIO_VALIDITY_MAX_SECONDS} seconds`);
  }
  const sendAt = sendAtOf(input);
  const source =
    input.From !== undefined
      ? { from: await ownedSender(executor, accountId, input.From) }
      : { fromGroup: await groupOfService(executor, accountId, input.MessagingServiceSid as string) };
  try {
    return await withTransaction(executor, async (tx) => {
      const callbackWebhookId = input.StatusCallback
        ? await twilioCallbackTarget(tx, accountId, input.StatusCallback)
        : undefined;
      const sent = await submitMessage(tx, accountId, {
        ...source,
        to: input.To,
        content: input.Body as string,
        sendAt,
        ttlSeconds: validity === undefined ? undefined : Math.max(validity, MIN_TTL_SECONDS),
        callbackWebhookId,
        origin: 'twilio',
      });
      return presentTwilioMessage(await ownedMessage(tx, accountId, sent.id));
    });
  } catch (error) {
    throw inTwilioTerms(error);
  }
}

function messageNotFound(messageId: string): DomainError {
  return twilioError('NOT_FOUND', 20404, `The requested resource ${messageSidOf(messageId)} was not found`);
}

export async function fetchTwilioMessage(
  executor: Executor,
  accountId: string,
  messageId: string,
): Promise<MessageResource> {
  try {
    return presentTwilioMessage(await ownedMessage(executor, accountId, messageId));
  } catch (error) {
    throw error instanceof DomainError && error.code === 'NOT_FOUND' ? messageNotFound(messageId) : error;
  }
}

/** `Status=canceled`: the message-control cancel (queued or scheduled only, refunded). */
export async function cancelTwilioMessage(
  executor: Executor,
  accountId: string,
  messageId: string,
): Promise<MessageResource> {
  const current = await fetchTwilioMessage(executor, accountId, messageId);
  // Twilio cancels only what has not left for the carrier: a message a phone holds is `sending`.
  if (current.status === 'sending') {
    throw twilioError(
      'MESSAGE_NOT_CANCELLABLE',
      30409,
      `Message ${messageId} is sending. Only a queued or scheduled message can be canceled.`,
    );
  }
  try {
    await cancelMessage(executor, accountId, messageId);
  } catch (error) {
    if (error instanceof DomainError && error.code === 'MESSAGE_NOT_CANCELLABLE') {
      throw twilioError(
        'MESSAGE_NOT_CANCELLABLE',
        30409,
        `${error.detail} Only a queued or scheduled message can be canceled.`,
      );
    }
    throw error;
  }
  return fetchTwilioMessage(executor, accountId, messageId);
}

const FINAL: MessageRow['status'][] = ['sent', 'delivered', 'failed', 'expired', 'cancelled', 'received'];

/** DELETE, or `Body=""`: removes a final message's content, as Twilio redacts a message's body. */
export async function redactTwilioMessage(
  executor: Executor,
  accountId: string,
  messageId: string,
): Promise<MessageResource> {
  const row = await ownedMessage(executor, accountId, messageId).catch((error: unknown) => {
    throw error instanceof DomainError && error.code === 'NOT_FOUND' ? messageNotFound(messageId) : error;
  });
  if (!FINAL.includes(row.status)) {
    throw twilioError(
      'INVALID_TRANSITION',
      20009,
      'Cannot delete message because it is still in flight: wait for a final state, or cancel it.',
    );
  }
  const updated = await redactMessageContent(executor, accountId, messageId);
  return presentTwilioMessage(updated ?? row);
}

/** Twilio's dates: `YYYY-MM-DD` (the whole UTC day) or a full ISO 8601 time. */
function dateBound(raw: string, parameter: string): { start: Date; end: Date } {
  const day = /^\d{4}-\d{2}-\d{2}$/.test(raw);
  const start = new Date(day ? `${raw}T00:00:00Z` : raw);
  if (Number.isNaN(start.getTime()) || start.getUTCFullYear() < 1 || start.getUTCFullYear() > 9999) {
    throw validationError(parameter, 'not a date (YYYY-MM-DD) or an ISO 8601 time');
  }
  return { start, end: day ? new Date(start.getTime() + 24 * 3600 * 1000) : start };
}

function encodeToken(row: { createdAt: Date; id: string }): string {
  return `PA${Buffer.from(`${row.createdAt.toISOString()}|${row.id}`).toString('base64url')}`;
}

function decodeToken(token: string): { createdAt: Date; id: string } {
  const [at, id] = Buffer.from(token.replace(/^PA/, ''), 'base64url').toString('utf8').split('|');
  const createdAt = new Date(at ?? '');
  const year = createdAt.getUTCFullYear();
  if (!id || !/^[0-9a-f-]{36}$/.test(id) || Number.isNaN(year) || year < 1 || year > 9999) {
    throw validationError('PageToken', 'not a page token this API gave out');
  }
  return { createdAt, id };
}

/**
 * GET Messages.json: newest first, filtered by To, From and the date (sent: created, for Simgate),
 * in Twilio's pages; `next_page_uri` carries the filters and a PageToken (keyset on created_at, id).
 */
export async function listTwilioMessages(
  executor: Executor,
  accountId: string,
  query: ListMessagesQuery,
): Promise<{ messages: MessageResource[] } & Record<string, unknown>> {
  const filter: MessageRowsQuery = { limit: query.PageSize + 1 };
  if (query.To) filter.to = toE164(query.To) ?? query.To;
  if (query.From) filter.from = toE164(query.From) ?? query.From;
  // Each bound narrows the period: the latest start and the earliest end hold.
  const from = (at: Date) => {
    if (!filter.createdFrom || at > filter.createdFrom) filter.createdFrom = at;
  };
  const before = (at: Date) => {
    if (!filter.createdBefore || at < filter.createdBefore) filter.createdBefore = at;
  };
  if (query.DateSent) {
    // Messages of that (UTC) day, whether a date or a time names it, as Twilio filters.
    const day = dateBound(dateBound(query.DateSent, 'DateSent').start.toISOString().slice(0, 10), 'DateSent');
    from(day.start);
    before(day.end);
  }
  if (query['DateSent<']) before(dateBound(query['DateSent<'], 'DateSent<').end);
  if (query['DateSent>']) from(dateBound(query['DateSent>'], 'DateSent>').start);
  if (query.PageToken) filter.after = decodeToken(query.PageToken);
  const rows = await messageRowsNewestFirst(executor, accountId, filter);
  const page = rows.slice(0, query.PageSize);
  const last = page.at(-1);
  const path = `${accountBase(accountId)}/Messages.json`;
  const filtersOf = (extra: Record<string, string>) => {
    const params = new URLSearchParams();
    for (const name of ['To', 'From', 'DateSent', 'DateSent<', 'DateSent>'] as const) {
      const value = query[name];
      if (value) params.set(name, value);
    }
    params.set('PageSize', String(query.PageSize));
    for (const [name, value] of Object.entries(extra)) params.set(name, value);
    return `${path}?${params}`;
  };
  const start = query.Page * query.PageSize;
  return {
    messages: page.map(presentTwilioMessage),
    page: query.Page,
    page_size: query.PageSize,
    start,
    end: start + Math.max(page.length - 1, 0),
    uri: filtersOf({ Page: String(query.Page), ...(query.PageToken ? { PageToken: query.PageToken } : {}) }),
    first_page_uri: filtersOf({ Page: '0' }),
    next_page_uri:
      rows.length > query.PageSize && last
        ? filtersOf({ Page: String(query.Page + 1), PageToken: encodeToken(last) })
        : null,
    previous_page_uri: null,
  };
}
