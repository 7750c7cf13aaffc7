import type { Database, Executor } from '@/db';
import { WEBHOOK_KINDS } from '@/db/schema';
import type { WebhookAnswer } from '@/lib/automation/webhook-reply';
import { webhookPayload } from '@/lib/event-catalogue/catalogue';
import { registry } from '@/lib/registry';
import { signedHeaders, signingSecrets } from './signing';
import type { LoadedDelivery } from './worker';

export type WebhookKind = (typeof WEBHOOK_KINDS)[number];

/** What a delivery posts: the body and its headers (the signature among them). */
export type DeliveryRequest = { body: string; headers: Record<string, string> };

/** Builds one delivery's request; `claimedAt` is when the worker took it (the secret in force then). */
export type WebhookFormatter = (db: Database, delivery: LoadedDelivery, claimedAt: Date) => Promise<DeliveryRequest>;

/** The inbound message a delivery's answer replies to. */
export type ReplyTarget = { accountId: string; webhookId: string; inboundMessageId: string };

/**
 * What a kind of webhook is: the one place a kind says what it posts. A new wire format (another
 * gateway's webhooks) is a kind and a format registered for it, not a branch in the worker.
 */
export type WebhookFormat = {
  request: WebhookFormatter;
  /**
   * Throws a validation error when the account cannot have a webhook of this format carrying
   * `events` (what the format can carry, a secret it must sign with). None: any event, no condition.
   */
  assertUsable?: (executor: Executor, accountId: string, events: readonly string[]) => Promise<void>;
  /**
   * Acts on a 2xx answer to a `message.received` delivery; returns what the log shows of it. None:
   * Simgate's JSON reply (lib/automation/webhook-reply.ts).
   */
  actOnReply?: (db: Database, target: ReplyTarget, answer: WebhookAnswer) => Promise<string | null>;
};

const formats = registry<WebhookKind, WebhookFormat>('webhook format');

/** Called by the adapter whose wire format `kind` is (lib/protocols/register.ts). */
export function registerWebhookFormat(kind: WebhookKind, format: WebhookFormat): void {
  formats.register(kind, format);
}

/** The format of a kind of webhook; throws when no adapter registered it. */
export function webhookFormat(kind: WebhookKind): WebhookFormat {
  return formats.get(kind);
}

/** The kinds that have no format yet (test/protocol-registries.test.ts checks there are none). */
export function unregisteredWebhookKinds(): WebhookKind[] {
  return WEBHOOK_KINDS.filter((kind) => formats.find(kind) === undefined);
}

/** Simgate's own body, signed with Standard Webhooks headers under the webhook's secret. */
const standard: WebhookFormatter = async (_db, delivery, claimedAt) => {
  const body = JSON.stringify(webhookPayload(delivery.eventType, delivery.eventCreatedAt, delivery.eventPayload));
  // Signed with the wall clock: receivers reject timestamps far from their own.
  return { body, headers: signedHeaders(signingSecrets(delivery, claimedAt), delivery.eventId, new Date(), body) };
};

// Simgate's own kinds: an account's endpoint and a send's status_callback_url.
registerWebhookFormat('endpoint', { request: standard });
registerWebhookFormat('callback', { request: standard });
