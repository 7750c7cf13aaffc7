import { randomUUID } from 'node:crypto';
import type { Executor } from '@/db';
import { DomainError, notFound, validationError } from '@/lib/errors';
import {
  claimExtId,
  findByExtId,
  recordBulk,
  type SmsgateRecipient,
  type StoredMessage,
  selectStates,
} from '@/lib/integrations/smsgate-messages';
import { bulkSender, phoneOfMessage, statusesOf } from '@/lib/messages/bulk-status';
import { cancelBulk } from '@/lib/messages/cancel';
import { DEFAULT_TTL_SECONDS } from '@/lib/messages/limits';
import { submitBulk } from '@/lib/messages/pipeline';
import { withTransaction } from '@/lib/transactions';
import { iso } from '@/lib/wire';
import {
  HIGH_PRIORITY_FROM,
  type ListMessagesQuery,
  type MessageStateWire,
  type ProcessingState,
  type SendMessageBody,
} from './schemas';
import { STATE_OF, STATES_SQL, stateOfHistory } from './states';

/**
 * SMSGate's messages over Simgate's: one SMSGate message is a bulk of one Simgate message per
 * recipient (credits, opt-outs, groups and pacing as on /api/v1), tied together by a
 * smsgate_messages row that holds the integrator's id and the recipients in their order.
 */

/** The SMSGate view of listed rows: recipients' states and the times the message entered each state. */
async function present(
  executor: Executor,
  accountId: string,
  rows: StoredMessage<ProcessingState>[],
  includeContent: boolean,
): Promise<MessageStateWire[]> {
  const ids = rows.flatMap((row) => row.recipients.flatMap((r) => (r.message_id ? [r.message_id] : [])));
  const { current: sent, history } = await statusesOf(executor, accountId, ids);
  const byId = new Map(sent.map((message) => [message.id, message]));
  return rows.map((row) => {
    const own = new Set(row.recipients.map((r) => r.message_id));
    const states: Record<string, string> = {};
    for (const entry of history) {
      const state = own.has(entry.messageId) ? stateOfHistory(entry.status) : undefined;
      const at = iso(entry.at);
      if (state && at && (!states[state] || states[state] < at)) states[state] = at;
    }
    if (row.recipients.some((r) => r.message_id === null)) states.Failed ??= iso(new Date(row.created_at)) ?? '';
    const first = row.recipients.find((r) => r.message_id)?.message_id;
    const wire: MessageStateWire = {
      id: row.ext_id,
      deviceId: row.phone_id ?? '',
      state: row.state,
      isHashed: false,
      isEncrypted: first ? byId.get(first)?.encrypted === true : false,
      recipients: row.recipients.map((recipient) => {
        const message = recipient.message_id ? byId.get(recipient.message_id) : undefined;
        if (!message)
          return { phoneNumber: recipient.phone_number, state: 'Failed', error: recipient.error ?? 'not sent' };
        const state = STATE_OF[message.status];
        return {
          phoneNumber: recipient.phone_number,
          state,
          ...(state === 'Failed' ? { error: message.error ?? message.status } : {}),
        };
      }),
      states,
    };
    if (includeContent && first) wire.textMessage = { text: byId.get(first)?.content ?? '' };
    return wire;
  });
}

async function stateOf(executor: Executor, accountId: string, extId: string): Promise<MessageStateWire> {
  const [row] = await selectStates<ProcessingState>(executor, accountId, { extId }, STATES_SQL);
  if (!row) throw notFound('Message');
  const [wire] = await present(executor, accountId, [row], false);
  return wire as MessageStateWire;
}

export async function getSmsgateMessage(
  executor: Executor,
  accountId: string,
  extId: string,
): Promise<MessageStateWire> {
  return stateOf(executor, accountId, extId);
}

export async function listSmsgateMessages(
  executor: Executor,
  accountId: string,
  query: ListMessagesQuery,
): Promise<{ items: MessageStateWire[]; total: number }> {
  const rows = await selectStates<ProcessingState>(executor, accountId, query, STATES_SQL);
  return { items: await present(executor, accountId, rows, query.includeContent), total: rows[0]?.total ?? 0 };
}

/** The phone named by `deviceId`, or the account's default group to choose one. */
async function senderOf(executor: Executor, accountId: string, deviceId: string | null | undefined) {
  const sender = await bulkSender(executor, accountId, deviceId);
  if (!sender) throw validationError('deviceId', 'no device with this id');
  return sender;
}

/**
 * POST /messages: the integrator's `id` is claimed first (smsgate_messages_account_ext_id_key, so a
 * repeat answers 409 and charges nothing), then the recipients go out as one bulk: all charged
 * or none (402), a named unverified phone 403, opted-out recipients Failed, the rest sent.
 */
export async function sendSmsgateMessage(
  executor: Executor,
  accountId: string,
  body: SendMessageBody,
): Promise<MessageStateWire> {
  const extId = body.id ?? randomUUID();
  const content = body.dataMessage?.data ?? body.textMessage?.text ?? body.message ?? '';
  if (body.dataMessage && !body.deviceId) {
    throw validationError('deviceId', 'a data message is sent from one device: give deviceId');
  }
  const sendAt = body.scheduleAt ? new Date(body.scheduleAt) : undefined;
  const ttlSeconds = body.validUntil
    ? Math.floor((new Date(body.validUntil).getTime() - (sendAt ?? new Date()).getTime()) / 1000)
    : (body.ttl ?? DEFAULT_TTL_SECONDS);
  if (body.validUntil && ttlSeconds < 60)
    throw validationError('validUntil', 'must be at least a minute after sending');
  const sender = await senderOf(executor, accountId, body.deviceId);
  return withTransaction(executor, async (tx) => {
    const claimed = await claimExtId(tx, accountId, extId);
    if (claimed === undefined) {
      throw new DomainError('DUPLICATE_REQUEST', `A message with id "${extId}" already exists.`, {
        extra: { id: extId },
      });
    }
    const bulk = await submitBulk(tx, accountId, {
      ...sender,
      recipients: body.phoneNumbers,
      content,
      dataPort: body.dataMessage?.port,
      dataField: 'dataMessage',
      sim: body.simNumber ?? undefined,
      sendAt,
      ttlSeconds: Math.min(ttlSeconds, 7 * 24 * 3600),
      priority: (body.priority ?? 0) >= HIGH_PRIORITY_FROM ? 'high' : 'normal',
      encrypted: body.isEncrypted === true,
      origin: 'smsgate_api',
    });
    const rejected = new Map(bulk.rejected.map((row) => [row.index, row.detail]));
    const sentIds = [...bulk.message_ids];
    const recipients: SmsgateRecipient[] = body.phoneNumbers.map((number, index) => {
      const error = rejected.get(index);
      return error !== undefined
        ? { phone_number: number, message_id: null, error }
        : { phone_number: number, message_id: sentIds.shift() ?? null, error: null };
    });
    const phoneId = await phoneOfMessage(tx, accountId, bulk.message_ids[0] as string);
    await recordBulk(tx, accountId, claimed, { bulkId: bulk.id, phoneId, recipients });
    return stateOf(tx, accountId, extId);
  });
}

const CANCELLABLE_STATES: ReadonlySet<string> = new Set(['Pending', 'Processed']);

/**
 * DELETE /messages/{id}: cancels a message not sent yet, Pending or Processed (Simgate's Processed is
 * a message its phone holds, which the reference server still calls Pending): its queued recipients
 * are cancelled and refunded, those a phone holds become Cancelling and the phone is told
 * (lib/messages/cancel.ts `cancelBulk`). Any other state answers 409.
 */
export async function cancelSmsgateMessage(
  executor: Executor,
  accountId: string,
  extId: string,
): Promise<MessageStateWire> {
  return withTransaction(executor, async (tx) => {
    const row = await findByExtId(tx, accountId, extId);
    if (!row) throw notFound('Message');
    const current = await stateOf(tx, accountId, extId);
    if (!CANCELLABLE_STATES.has(current.state) || !row.bulkId) {
      throw new DomainError(
        'MESSAGE_NOT_CANCELLABLE',
        `Message ${extId} is ${current.state}; only a Pending (or Processed, not yet sent) message can be cancelled.`,
        {
          extra: { current_state: current.state },
        },
      );
    }
    await cancelBulk(tx, accountId, row.bulkId);
    return stateOf(tx, accountId, extId);
  });
}
