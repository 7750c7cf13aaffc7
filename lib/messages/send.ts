import { randomUUID } from 'node:crypto';
import { and, eq, type SQL, sql } from 'drizzle-orm';
import { type Executor, queryRows } from '@/db';
import { type MessagePriority, messages } from '@/db/schema';
import { creditMovementCall, refusedDebitError } from '@/lib/credits/ledger';
import { DomainError, validationError } from '@/lib/errors';
import { log } from '@/lib/log';
import { messagesAccepted } from '@/lib/metrics/record';
import { outboxNotification } from '@/lib/notify/outbox';
import { countryOf, toE164 } from '@/lib/phone-number';
import { isTransaction, isUniqueViolation, isUnreadAnswer } from '@/lib/transactions';
import { callbackTarget } from '@/lib/webhooks/callbacks';
import { acceptInBatch } from './accept-batch';
import { chooseGroupPhones, noOnlinePhone } from './assign';
import { checkDataSender } from './data-sms';
import * as eligible from './eligibility';
import { MAX_CONTENT_LENGTH, MAX_REQUEST_ID_LENGTH } from './limits';
import { ORIGINS, type OutboundOrigin, screensOf } from './origins';
import { insertOutbound, type OutboundMessage, outboundRecords } from './outbound-row';
import { type MessageWire, messageColumns, messageRowOf, presentMessage } from './present';
import { queueFull, recountQueue, reserveQueueSql } from './queue-room';
import {
  groupQuotaReached,
  isQuotaRace,
  quotaSimSql,
  recipientQuotaReached,
  recordRecipientsCtes,
  severalSimsSql,
} from './quota';
import { countryNotAllowed, optedOut } from './refusals';
import { scheduleOf } from './schedule';
import { countSegments } from './segments';
import { senderRefusal } from './sender-phone';
import { smartContent } from './smart-content';
import { historyRowsSql } from './state-machine';

export type SendInput = {
  /** The message's id when the producer has answered it already (an SMPP concatenated submit's first part); a new one by default. */
  id?: string;
  /** The sending phone; exactly one of `from` and `fromGroup`. */
  from?: string;
  /** Send through this group: one of its phones is chosen, and the message may move between them. */
  fromGroup?: number;
  /** With `fromGroup`: 409 NO_ONLINE_PHONE instead of waiting when no phone of the group is online. */
  requireOnline?: boolean;
  to: string;
  content: string;
  requestId?: string;
  sendAt?: Date;
  ttlSeconds?: number;
  /** The SIM slot to send from. */
  sim?: number;
  priority?: MessagePriority;
  /** Where this message's state events are also delivered (lib/webhooks/callbacks.ts). */
  statusCallbackUrl?: string;
  /** A status callback target resolved already (a Twilio StatusCallback, lib/protocols/twilio/callbacks.ts). */
  callbackWebhookId?: string;
  /** Who asks for the send: its screens and its metrics label (lib/messages/origins.ts). */
  origin: OutboundOrigin;
  /** An automatic message answering an inbound one: once per inbound message and `key` (messages_origin_key). */
  cause?: { ruleId: string | null; inboundMessageId: string; key: string };
  /** A data SMS: `content` is its bytes in base64, sent to this port (lib/messages/data-sms.ts). */
  dataPort?: number;
  /** Replace GSM-7 look-alikes before counting segments (lib/messages/smart-encoding.ts); absent: the account's default. */
  smartEncoding?: boolean;
};

function checkInput(input: SendInput): { from: string | undefined; to: string } {
  if ((input.from === undefined) === (input.fromGroup === undefined)) {
    throw validationError('from', 'give exactly one of from and from_group');
  }
  const from = input.from === undefined ? undefined : toE164(input.from);
  if (input.from !== undefined && !from) throw validationError('from', 'not a valid E.164 phone number');
  const to = toE164(input.to);
  if (!to) throw validationError('to', 'not a valid E.164 phone number');
  if (input.dataPort !== undefined && input.from === undefined) {
    throw validationError('from', 'a data SMS is sent from one phone: give from, not from_group');
  }
  if (input.content.length < 1 || input.content.length > MAX_CONTENT_LENGTH) {
    throw validationError('content', `must be 1 to ${MAX_CONTENT_LENGTH} characters`);
  }
  if (input.requestId !== undefined && (input.requestId.length < 1 || input.requestId.length > MAX_REQUEST_ID_LENGTH)) {
    throw validationError('request_id', `must be 1 to ${MAX_REQUEST_ID_LENGTH} characters`);
  }
  return { from, to };
}

/** A send ready for its statement: the outbound message, and whether it may go to an opted-out number. */
type Accepted = OutboundMessage & { ignoreOptOut: boolean };

/**
 * Accepts one outbound message: sender ownership (403), the SIM slot (400), request_id idempotency
 * (409), the recipient's opt-out and country (422), room in the account's queue (429 QUEUE_FULL,
 * lib/messages/queue-room.ts), one credit from the sender's group (402), the message, its first history row and the claimers' wake-up,
 * all in ONE statement (see `acceptStatement`), checked in that order.
 */
export async function sendMessage(executor: Executor, accountId: string, input: SendInput): Promise<MessageWire> {
  const { from, to } = checkInput(input);
  const schedule = scheduleOf(input);
  // A data SMS's content is bytes in base64: nothing to replace.
  const content =
    input.dataPort === undefined
      ? await smartContent(executor, accountId, input.content, input.smartEncoding)
      : input.content;
  if (content.length > MAX_CONTENT_LENGTH) {
    throw validationError(
      'content',
      `is over ${MAX_CONTENT_LENGTH} characters once smart encoding replaced look-alikes`,
    );
  }
  const { encoding, segments } =
    input.dataPort === undefined ? countSegments(content) : { encoding: 'GSM-7' as const, segments: 1 };
  if (input.dataPort !== undefined && from) await checkDataSender(executor, accountId, from);
  const accepted: Accepted = {
    id: input.id ?? randomUUID(),
    accountId,
    phoneId: null,
    groupId: null,
    from: from ?? (await groupSender(executor, accountId, input, to)),
    fromGroup: input.fromGroup ?? null,
    sim: input.sim ?? null,
    priority: input.priority ?? 'normal',
    callbackWebhookId:
      input.callbackWebhookId ??
      (input.statusCallbackUrl ? await callbackTarget(executor, accountId, input.statusCallbackUrl) : null),
    ignoreOptOut: !screensOf(input.origin).optOut,
    origin: rowOrigin(input),
    kind: input.dataPort === undefined ? 'message' : 'data',
    dataPort: input.dataPort ?? null,
    to,
    content,
    requestId: input.requestId ?? null,
    bulkId: null,
    encrypted: false,
    segments,
    encoding,
    ...schedule,
    createdAt: null,
  };
  let sent: MessageWire;
  try {
    // A savepoint inside a caller's transaction: a send the database refuses leaves that transaction usable.
    sent = isTransaction(executor)
      ? await executor.transaction((tx) => acceptMessage(tx, accepted))
      : await acceptMessage(executor, accepted);
  } catch (error) {
    // A concurrent send with this request_id committed after our statement's snapshot: the
    // statement failed as a whole, so it charged nothing.
    if (accepted.requestId !== null && isUniqueViolation(error, 'messages_account_request_id_key')) {
      throw duplicateOf(accepted.requestId, await messageWithRequestId(executor, accountId, accepted.requestId));
    }
    if (isQuotaRace(error)) throw await raceRefusal(executor, accepted);
    if (accepted.origin && isUniqueViolation(error, 'messages_origin_key')) {
      throw new DomainError('DUPLICATE_REQUEST', 'This automatic message was sent already.');
    }
    // The statement ran but its answer could not be read: it may have committed (never a 500 then).
    // Inside a transaction the savepoint rolled it back, so nothing was saved.
    if (isTransaction(executor) || !isUnreadAnswer(error)) throw error;
    sent = await savedOrUnknown(executor, accepted, error);
  }
  messagesAccepted(executor, 1, { surface: ORIGINS[input.origin].surface, charged: true });
  return sent;
}

/** How the message row names an automatic message that answers an inbound one (messages_origin_key). */
function rowOrigin(input: SendInput): OutboundMessage['origin'] {
  const kind = ORIGINS[input.origin].rowKind;
  return kind && input.cause ? { kind, ...input.cause } : null;
}

/**
 * The answer to a send whose statement ran but whose answer was lost (`isUnreadAnswer`): the
 * message as saved when it is there, else 503 naming the request_id to retry with (a send that
 * was saved after all answers that retry 409 DUPLICATE_REQUEST with its id, and charges nothing).
 */
async function savedOrUnknown(executor: Executor, accepted: Accepted, cause: unknown): Promise<MessageWire> {
  log.warn({ err: cause, messageId: accepted.id }, 'send: the answer of its statement could not be read');
  const saved = await executor
    .select()
    .from(messages)
    .where(and(eq(messages.accountId, accepted.accountId), eq(messages.id, accepted.id)))
    .catch(() => []);
  if (saved[0]) return presentMessage(saved[0]);
  const retry =
    accepted.requestId === null
      ? `Before sending again, look for message ${accepted.id}; send with a request_id to make a retry safe.`
      : `Send again with request_id "${accepted.requestId}": if it was accepted, that answers 409 DUPLICATE_REQUEST with its id.`;
  throw new DomainError('SERVICE_UNAVAILABLE', `Whether the message was accepted is not known. ${retry}`, {
    // `request_id` in a problem body is the HTTP request's (lib/net/problem.ts): the send's is in the detail.
    extra: { message_id: accepted.id },
    headers: { 'Retry-After': '1' },
  });
}

/** The phone of the group that a group send goes to (see chooseGroupPhones). */
async function groupSender(executor: Executor, accountId: string, input: SendInput, to: string): Promise<string> {
  const groupId = input.fromGroup as number;
  const chosen = await chooseGroupPhones(executor, accountId, {
    groupId,
    recipients: [to],
    sim: input.sim,
    requireOnline: input.requireOnline,
  });
  const phone = chosen.get(to);
  // chooseGroupPhones found phones that may send (or said why not): none has room for `to` this month.
  if (!phone) throw groupQuotaReached(groupId);
  return phone.phone;
}

type Outcome = {
  sender_id: string;
  sender_group_id: number;
  sim_ok: boolean;
  quota_ok: boolean;
  quota_cap: number | null;
  quota_sim: number | null;
  opted_out: boolean;
  country_ok: boolean;
  queue_ok: boolean;
  existing_id: string | null;
  id: string | null;
} & Record<string, unknown>;

async function acceptMessage(executor: Executor, message: Accepted, recounted = false): Promise<MessageWire> {
  // Automatic messages, opt-out confirmations and data SMS (rare, with their own rules) always go alone.
  if (message.origin === null && !message.ignoreOptOut && message.dataPort === null) {
    const batched = await acceptInBatch(executor, { ...message, country: countryOf(message.to) ?? null });
    if (batched) return presentMessage(batched);
  }
  // Alone: what the batch did not take gets its own answer here.
  const [outcome] = await queryRows<Outcome>(executor, acceptStatement(message));
  if (!outcome) {
    if (message.fromGroup !== null) throw noOnlinePhone(message.fromGroup);
    throw await senderRefusal(executor, message.accountId, message.from);
  }
  if (outcome.id !== null) return presentMessage(messageRowOf(outcome));
  if (!outcome.sim_ok) throw simNotOnPhone(message.sim, message.from);
  if (outcome.existing_id !== null) throw duplicateOf(message.requestId, outcome.existing_id);
  if (outcome.opted_out) throw optedOut(message.to);
  if (!outcome.country_ok) throw countryNotAllowed(message.to);
  if (!outcome.quota_ok) throw quotaRefusal(message, Number(outcome.quota_cap), outcome.quota_sim);
  if (!outcome.queue_ok) {
    // The count says full: recount the account's queue once, and try again if that made room.
    const room = await recountQueue(executor, message.accountId);
    if (recounted || room.queued >= room.limit) throw queueFull(room);
    return acceptMessage(executor, message, true);
  }
  // Nothing was charged. A send with this request_id may have committed meanwhile: it comes first.
  const existingId = message.requestId && (await messageWithRequestId(executor, message.accountId, message.requestId));
  if (existingId) throw duplicateOf(message.requestId, existingId);
  throw await refusedDebitError(executor, {
    accountId: message.accountId,
    groupId: Number(outcome.sender_group_id),
    required: 1,
    operation: 'send',
  });
}

/**
 * The statement that accepts a plain send (`from` a phone, no group, options left to their defaults)
 * when it goes alone: what the benchmark runs from the database client alone for the database's
 * ceiling (bench/run.ts `db_ceiling`).
 */
export function plainSendStatement(
  accountId: string,
  input: { from: string; to: string; content: string; requestId: string },
): SQL {
  const { encoding, segments } = countSegments(input.content);
  return acceptStatement({
    id: randomUUID(),
    accountId,
    phoneId: null,
    groupId: null,
    from: input.from,
    fromGroup: null,
    sim: null,
    priority: 'normal',
    callbackWebhookId: null,
    ignoreOptOut: false,
    origin: null,
    kind: 'message',
    dataPort: null,
    to: input.to,
    content: input.content,
    requestId: input.requestId,
    bulkId: null,
    encrypted: false,
    segments,
    encoding,
    ...scheduleOf({}),
    createdAt: null,
  });
}

/**
 * The whole send as one statement, so it is one round trip and holds the group's row lock only
 * while the statement runs (a transaction around several statements would hold it across all
 * their round trips, and every send of the group would wait behind it). Every CTE runs on one
 * snapshot, so the statement is built to write nothing unless it writes everything: the charge
 * (`simgate_move_credits`, the rule every credit movement goes through) is taken only if the
 * sender is the account's and the request_id is unused (as far as the snapshot shows), and the
 * message, its history row and the wake-up all select FROM the charge. A send with the same
 * request_id committing after the snapshot makes the insert fail on
 * messages_account_request_id_key (after waiting for it), which undoes the charge with the
 * statement. The answer row tells the cases apart: no row (not the account's phone),
 * `existing_id` (request_id used), `queue_ok` false (the queue is full), no message (the charge was
 * refused), or the message.
 *
 * The queue's room (`room`, lib/messages/queue-room.ts) is taken after every other check and before
 * the charge, which selects from it: a send past the account's max_queued_messages charges nothing.
 *
 * Lock order (lib/phones/delete.ts): the sender's phone row (FOR KEY SHARE, the lock the message's
 * foreign key would take anyway), then the account's queue row, BEFORE the group's balance row. Left
 * to the foreign key check, the phone lock would come after the charge, and a phone deletion (phone, then the refund's
 * group) would deadlock with the send. A send that waits on a deletion finds no phone: 403.
 */
function acceptStatement(message: Accepted): SQL {
  const { accountId, requestId } = message;
  const country = countryOf(message.to) ?? null;
  const charge = creditMovementCall({
    accountId,
    groupId: sql`sender.group_id`,
    amount: -1,
    kind: 'message_charge',
    messageIds: [message.id],
  });
  // A new queued message needs only its history row: `queued` emits no event and refunds nothing.
  const facts: eligible.SendFacts = {
    accountId: sql`${accountId}::uuid`,
    from: sql`${message.from}::text`,
    fromGroup: sql`${message.fromGroup}::int`,
    sim: sql`${message.sim}::smallint`,
    to: sql`${message.to}::text`,
    country: sql`${country}::text`,
    requestId: sql`${requestId}::text`,
  };
  return sql`
    with sender as (
      select p.id, p.group_id, ${eligible.simFits(facts)} as sim_ok, p.monthly_recipient_cap as quota_cap,
        ${eligible.recipientWithinQuota(facts)} as quota_ok,
        case when ${severalSimsSql()} then ${quotaSimSql(facts.sim)} end as quota_sim
      from phones p left join devices d on d.id = p.device_id
      where ${eligible.senderMatches(facts)}
      for key share of p
    ),
    existing as (${eligible.requestIdHolder(facts)}),
    country as (
      select ${eligible.countryAllowed(facts)} as ok
      from sender join phone_groups g on g.account_id = ${accountId}::uuid and g.id = sender.group_id join accounts a on a.id = ${accountId}::uuid
    ),
    opted as (
      select 1 where ${!message.ignoreOptOut} and ${eligible.recipientOptedOut(facts)}
    ),
    room as (
      ${reserveQueueSql(sql`
        select ${accountId}::uuid as account_id, 1 as count from sender
        where sender.sim_ok and not exists (select 1 from existing) and not exists (select 1 from opted)
          and (select ok from country) and sender.quota_ok`)}
    ),
    charged as (
      select ${charge} as balance_after from sender where exists (select 1 from room)
    ),
    message as (
      ${insertOutbound({
        source: sql`${outboundRecords([message], 'm')}, sender, charged where charged.balance_after is not null`,
        alias: 'm',
        chosen: { phoneId: sql`sender.id`, groupId: sql`sender.group_id` },
      })}
    ),
    history as (${historyRowsSql('message', sql`created_at`)}),
    woken as (
      select ${outboxNotification(sql`phone_id`)} from message
    ),
    ${recordRecipientsCtes()}
    select sender.id as sender_id, sender.group_id as sender_group_id, sender.sim_ok,
      sender.quota_ok, sender.quota_cap, sender.quota_sim, (select ok from quota_guard) as quota_guard,
      exists (select 1 from opted) as opted_out, (select ok from country) as country_ok,
      exists (select 1 from room) as queue_ok,
      (select id from existing) as existing_id,
      (select count(*)::int from woken) as woken, ${messageColumns('message')}
    from sender left join message on true
  `;
}

/** The monthly recipient cap refused the send: for the phone (its SIM `sim`) it was sent from, or for the group. */
function quotaRefusal(message: Accepted, cap: number, sim: number | null): DomainError {
  return message.fromGroup === null
    ? recipientQuotaReached(message.from, cap, sim === null ? null : Number(sim))
    : groupQuotaReached(message.fromGroup);
}

/** A concurrent send took the sender's last room after the statement's snapshot: the same refusal. */
async function raceRefusal(executor: Executor, message: Accepted): Promise<DomainError> {
  const [phone] = await queryRows<{ cap: number | null; sim: number | null }>(
    executor,
    sql`select p.monthly_recipient_cap as cap,
          case when ${severalSimsSql()} then ${quotaSimSql(sql`${message.sim}::smallint`)} end as sim
        from phones p left join devices d on d.id = p.device_id
        where p.account_id = ${message.accountId}::uuid and p.phone = ${message.from}`,
  );
  return quotaRefusal(message, Number(phone?.cap ?? 0), phone?.sim ?? null);
}

function simNotOnPhone(sim: number | null, from: string): DomainError {
  return validationError('sim', `phone ${from} has reported no SIM in slot ${sim}`);
}

function duplicateOf(requestId: string | null, messageId: string | undefined): DomainError {
  return new DomainError('DUPLICATE_REQUEST', `A message with request_id "${requestId}" already exists.`, {
    extra: messageId ? { message_id: messageId } : undefined,
  });
}

async function messageWithRequestId(
  executor: Executor,
  accountId: string,
  requestId: string,
): Promise<string | undefined> {
  const [existing] = await executor
    .select({ id: messages.id })
    .from(messages)
    .where(and(eq(messages.accountId, accountId), eq(messages.requestId, requestId)));
  return existing?.id;
}
