import type { Database } from '@/db';
import type { WEBHOOK_KINDS } from '@/db/schema';
import { webhookPayload } from '@/lib/events/catalogue';
import { smsgateDeliveryRequest } from '@/lib/protocols/smsgate-api/webhook-body';
import { twilioDeliveryRequest } from '@/lib/protocols/twilio/webhook-body';
import { signedHeaders, signingSecrets } from './signing';
import type { LoadedDelivery } from './worker';

/** What a delivery posts: the body and its headers (the signature among them). */
export type DeliveryRequest = { body: string; headers: Record<string, string> };

/** Builds one delivery's request; `claimedAt` is when the worker took it (the secret in force then). */
export type WebhookFormatter = (db: Database, delivery: LoadedDelivery, claimedAt: Date) => Promise<DeliveryRequest>;

/** Simgate's own body, signed with Standard Webhooks headers under the webhook's secret. */
const standard: WebhookFormatter = async (_db, delivery, claimedAt) => {
  const body = JSON.stringify(webhookPayload(delivery.eventType, delivery.eventCreatedAt, delivery.eventPayload));
  // Signed with the wall clock: receivers reject timestamps far from their own.
  return { body, headers: signedHeaders(signingSecrets(delivery, claimedAt), delivery.eventId, new Date(), body) };
};

/**
 * The body formatter of each kind of webhook: the one place a kind says what it posts. A new wire
 * format (another gateway's webhooks) is a kind and a formatter here, not a branch in the worker.
 */
export const WEBHOOK_FORMATTERS: Record<(typeof WEBHOOK_KINDS)[number], WebhookFormatter> = {
  endpoint: standard,
  callback: standard,
  // SMSGate's body and signature, for webhooks registered through its integrator API.
  smsgate: (db, delivery) => smsgateDeliveryRequest(db, delivery, new Date()),
  // Twilio's form-encoded requests with X-Twilio-Signature under the account's Auth Token.
  twilio: (db, delivery) => twilioDeliveryRequest(db, delivery),
  twilio_callback: (db, delivery) => twilioDeliveryRequest(db, delivery),
};
