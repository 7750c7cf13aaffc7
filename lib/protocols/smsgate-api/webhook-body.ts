import { createHmac } from 'node:crypto';
import type { Database } from '@/db';
import type { EventType } from '@/lib/event-catalogue/catalogue';
import { extIdOfBulk } from '@/lib/integrations/smsgate-messages';
import { signingKeyOf } from '@/lib/integrations/smsgate-signing-key';
import { phoneIdOfNumber } from '@/lib/phones/owned';

export type SmsgateDelivery = {
  accountId: string;
  eventId: string;
  eventType: EventType;
  eventPayload: unknown;
  eventCreatedAt: Date;
  eventPhone: string | null;
  extId: string | null;
  extEvent: string | null;
};

type MessageData = {
  id?: string;
  from?: string;
  to?: string;
  content?: string;
  sim?: number | null;
  bulk_id?: string | null;
  error?: string | null;
  status?: string;
  created_at?: string;
};

/** SMSGate's signature: hex HMAC-SHA256 of the body followed by the X-Timestamp value. */
export function smsgateSignature(key: string, body: string, timestamp: string): string {
  return createHmac('sha256', key)
    .update(body + timestamp)
    .digest('hex');
}

/** The id the integrator knows a message by: its SMSGate id when it was sent through that API. */
async function messageIdOf(db: Database, accountId: string, data: MessageData): Promise<string> {
  const extId = data.bulk_id ? await extIdOfBulk(db, accountId, data.bulk_id) : undefined;
  return extId ?? data.id ?? '';
}

async function payloadOf(db: Database, delivery: SmsgateDelivery): Promise<Record<string, unknown>> {
  const data = (delivery.eventPayload ?? {}) as MessageData;
  const at = delivery.eventCreatedAt.toISOString();
  switch (delivery.eventType) {
    case 'message.received':
      return {
        messageId: data.id,
        message: data.content,
        phoneNumber: data.from,
        simNumber: data.sim ?? null,
        receivedAt: data.created_at ?? at,
      };
    case 'message.sent':
      return { messageId: await messageIdOf(db, delivery.accountId, data), phoneNumber: data.to, sentAt: at };
    case 'message.delivered':
      return { messageId: await messageIdOf(db, delivery.accountId, data), phoneNumber: data.to, deliveredAt: at };
    case 'message.failed':
    case 'message.expired':
      return {
        messageId: await messageIdOf(db, delivery.accountId, data),
        phoneNumber: data.to,
        failedAt: at,
        reason: data.error ?? (delivery.eventType === 'message.expired' ? 'expired' : 'failed'),
      };
    default:
      return {};
  }
}

/**
 * A delivery to an SMSGate-format webhook: SMSGate's body `{ id, webhookId, event, deviceId,
 * payload }` (the event id as `id`, the same on every retry), signed with the account's SMSGate
 * signing key as its apps sign theirs: `X-Signature` and `X-Timestamp` (unix seconds).
 */
export async function smsgateDeliveryRequest(
  db: Database,
  delivery: SmsgateDelivery,
  now: Date,
): Promise<{ body: string; headers: Record<string, string> }> {
  const phoneId = delivery.eventPhone ? await phoneIdOfNumber(db, delivery.accountId, delivery.eventPhone) : undefined;
  const body = JSON.stringify({
    id: delivery.eventId,
    webhookId: delivery.extId,
    event: delivery.extEvent,
    deviceId: phoneId ?? null,
    payload: await payloadOf(db, delivery),
  });
  const timestamp = String(Math.floor(now.getTime() / 1000));
  const key = await signingKeyOf(db, delivery.accountId);
  return { body, headers: { 'X-Signature': smsgateSignature(key, body, timestamp), 'X-Timestamp': timestamp } };
}
