import { createHmac } from 'node:crypto';
import type { Database } from '@/db';
import { authTokenOf } from './credentials';
import { accountSidOf, messageSidOf, messagingServiceSidOf } from './ids';
import { API_VERSION, twilioErrorCodeOf, twilioStatusOf } from './messages';

/**
 * Twilio's X-Twilio-Signature: base64 HMAC-SHA1, under the Auth Token, of the URL followed by each
 * POST parameter's name and value, sorted by name (what `twilio.validateRequest` checks).
 */
export function twilioSignature(authToken: string, url: string, params: Record<string, string>): string {
  const data = Object.keys(params)
    .sort()
    .reduce((acc, name) => acc + name + params[name], url);
  return createHmac('sha1', authToken).update(Buffer.from(data, 'utf-8')).digest('base64');
}

type MessageData = {
  id?: string;
  from?: string;
  to?: string;
  content?: string;
  status?: string;
  segments?: number;
  from_group?: number | null;
  send_at?: string | null;
  error?: string | null;
};

type TwilioDelivery = { accountId: string; eventType: string; eventPayload: unknown; url: string };

/** A message event's parameters as Twilio posts them: an inbound message's request, or a status callback. */
export function twilioParams(delivery: TwilioDelivery): Record<string, string> {
  // Only message events have a Twilio request; another (a webhook's test) names itself.
  if (!delivery.eventType.startsWith('message.')) {
    return { AccountSid: accountSidOf(delivery.accountId), ApiVersion: API_VERSION, EventType: delivery.eventType };
  }
  const data = (delivery.eventPayload ?? {}) as MessageData;
  const sid = data.id ? messageSidOf(data.id) : '';
  const common: Record<string, string> = {
    MessageSid: sid,
    SmsSid: sid,
    AccountSid: accountSidOf(delivery.accountId),
    From: data.from ?? '',
    To: data.to ?? '',
    ApiVersion: API_VERSION,
  };
  if (typeof data.from_group === 'number') common.MessagingServiceSid = messagingServiceSidOf(data.from_group);
  if (delivery.eventType === 'message.received') {
    return {
      ...common,
      SmsMessageSid: sid,
      Body: data.content ?? '',
      NumMedia: '0',
      NumSegments: String(data.segments ?? 1),
      SmsStatus: 'received',
    };
  }
  const row = {
    status: (data.status ?? 'queued') as Parameters<typeof twilioStatusOf>[0]['status'],
    sendAt: new Date(data.send_at ?? 0),
    error: data.error ?? null,
  };
  const status = twilioStatusOf(row);
  const errorCode = twilioErrorCodeOf(row);
  return {
    ...common,
    MessageStatus: status,
    SmsStatus: status,
    ...(errorCode === null ? {} : { ErrorCode: String(errorCode) }),
  };
}

/**
 * What a `twilio` or `twilio_callback` webhook posts: the parameters form-encoded, signed with the
 * account's Auth Token. No Auth Token (never created): the delivery cannot be signed, and waits.
 */
export async function twilioDeliveryRequest(
  db: Database,
  delivery: TwilioDelivery,
): Promise<{ body: string; headers: Record<string, string> }> {
  const token = await authTokenOf(db, delivery.accountId);
  if (!token) throw new Error('the account has no Twilio Auth Token to sign with');
  const params = twilioParams(delivery);
  return {
    body: new URLSearchParams(params).toString(),
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-twilio-signature': twilioSignature(token, delivery.url, params),
    },
  };
}
