import type { webhookAttempts, webhookDeliveries, webhooks } from '@/db/schema';
import { iso } from '@/lib/wire';

export type WebhookRow = typeof webhooks.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type AttemptRow = typeof webhookAttempts.$inferSelect;

/** The webhook as the wire shows it; the secret only where the caller asked for it. */
export function presentWebhook(row: WebhookRow) {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    phone_filters: row.phoneFilters,
    description: row.description,
    enabled: row.enabled,
    accept_replies: row.acceptReplies,
    format: row.kind === 'smsgate' || row.kind === 'twilio' ? row.kind : ('standard' as const),
    disabled_reason: row.disabledReason,
    created_at: iso(row.createdAt)!,
    updated_at: iso(row.updatedAt)!,
  };
}

export function presentDelivery(row: DeliveryRow) {
  return {
    id: row.id,
    webhook_id: row.webhookId,
    event_id: row.eventId,
    event_type: row.eventType,
    status: row.status,
    attempt_count: row.attemptCount,
    next_attempt_at: row.status === 'pending' ? iso(row.nextAttemptAt) : null,
    last_status_code: row.lastStatusCode,
    last_error: row.lastError,
    created_at: iso(row.createdAt)!,
    updated_at: iso(row.updatedAt)!,
  };
}

export function presentAttempt(row: AttemptRow) {
  return {
    id: row.id,
    attempted_at: iso(row.attemptedAt)!,
    status_code: row.statusCode,
    latency_ms: row.latencyMs,
    error: row.error,
    response_body: row.responseBody,
    reply_result: row.replyResult,
  };
}
