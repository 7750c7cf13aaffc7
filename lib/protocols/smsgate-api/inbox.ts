import type { Executor } from '@/db';
import { type MessageKind, receivedMessagesPage } from '@/lib/messages/received';
import { iso } from '@/lib/wire';
import type { InboxQuery, IncomingMessageType, IncomingMessageWire } from './schemas';

/**
 * What each SMSGate type of received message is among Simgate's message kinds; a type with none lists
 * nothing. `MMS` lists every received MMS, those the app reported as `mms:downloaded` too (both are kind
 * `mms`), so `MMS_DOWNLOADED` has no kind of its own.
 */
const KIND_OF_TYPE: Partial<Record<IncomingMessageType, MessageKind>> = {
  SMS: 'message',
  DATA_SMS: 'data',
  MMS: 'mms',
};
const TYPE_OF_KIND = new Map(Object.entries(KIND_OF_TYPE).map(([type, kind]) => [kind, type as IncomingMessageType]));

/**
 * GET /inbox: the account's received messages (those GET /api/v1/messages?direction=inbound
 * lists), newest first, as SMSGate's `IncomingMessage`, with the total before paging.
 */
export async function listInbox(
  executor: Executor,
  accountId: string,
  query: InboxQuery,
): Promise<{ items: IncomingMessageWire[]; total: number }> {
  const kind = query.type ? KIND_OF_TYPE[query.type] : undefined;
  if (query.type && !kind) return { items: [], total: 0 };
  const { rows, total } = await receivedMessagesPage(executor, accountId, {
    kinds: kind ? [kind] : [...TYPE_OF_KIND.keys()],
    from: query.from ? new Date(query.from) : undefined,
    to: query.to ? new Date(query.to) : undefined,
    phoneId: query.deviceId,
    limit: query.limit,
    offset: query.offset,
  });
  return {
    items: rows.map((row) => ({
      id: row.id,
      type: TYPE_OF_KIND.get(row.kind) ?? 'SMS',
      sender: row.from,
      ...(row.to ? { recipient: row.to } : {}),
      ...(row.sim ? { simNumber: row.sim } : {}),
      contentPreview: row.content,
      createdAt: iso(row.createdAt) ?? '',
    })),
    total,
  };
}
