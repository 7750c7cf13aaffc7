import { randomUUID } from 'node:crypto';
import type { Executor } from '@/db';
import { validationError } from '@/lib/errors';
import { phoneOfIdText } from '@/lib/phones/owned';
import { deleteExternalWebhook, listExternalWebhooks, putExternalWebhook } from '@/lib/webhooks/external';
import type { WebhookRow } from '@/lib/webhooks/present';
import { webhookUrl } from '@/lib/webhooks/url';
import { assertReachableUrl } from '@/lib/webhooks/validate';
import { SMSGATE_EVENTS, type SmsgateEvent } from './schemas';

/** Every event name SMSGate's reference accepts; those outside SMSGATE_EVENTS are stored and never fire. */
export const SMSGATE_EVENT_NAMES = [
  'sms:received',
  'sms:data-received',
  'sms:sent',
  'sms:delivered',
  'sms:failed',
  'sms:cancelled',
  'system:ping',
  'mms:received',
  'mms:downloaded',
  'app:started',
  'sms:batch:received',
  'sms:batch:data-received',
  'mms:batch:received',
  'mms:batch:downloaded',
] as const;

export type SmsgateWebhookWire = { id: string; url: string; event: string; deviceId: string | null };

function present(row: WebhookRow): SmsgateWebhookWire {
  return { id: row.extId ?? row.id, url: row.url, event: row.extEvent ?? '', deviceId: row.extDeviceId };
}

export async function listSmsgateWebhooks(executor: Executor, accountId: string): Promise<SmsgateWebhookWire[]> {
  return (await listExternalWebhooks(executor, accountId)).map(present);
}

/**
 * POST /webhooks: registers a webhook in SMSGate's format, delivered by Simgate's durable worker;
 * an `id` that exists (in this account) replaces that webhook. https only, and the address rules
 * of every webhook (no private networks in server mode).
 */
export async function registerSmsgateWebhook(
  executor: Executor,
  accountId: string,
  input: { id?: string | null; url: string; event: string; deviceId?: string | null },
): Promise<SmsgateWebhookWire> {
  const parsedUrl = webhookUrl.safeParse(input.url);
  if (!parsedUrl.success) throw validationError('url', parsedUrl.error.issues[0]?.message ?? 'not a valid https URL');
  if (!(SMSGATE_EVENT_NAMES as readonly string[]).includes(input.event)) {
    throw validationError('event', `must be one of ${SMSGATE_EVENT_NAMES.join(', ')}`);
  }
  await assertReachableUrl(parsedUrl.data);
  let phoneFilters: string[] = [];
  if (input.deviceId) {
    const phone = await phoneOfIdText(executor, accountId, input.deviceId);
    if (!phone) throw validationError('deviceId', 'no device with this id');
    phoneFilters = [phone.phone];
  }
  const events = [...(SMSGATE_EVENTS[input.event as SmsgateEvent] ?? [])];
  const extId = input.id ?? randomUUID();
  await putExternalWebhook(executor, accountId, {
    extId,
    url: parsedUrl.data,
    extEvent: input.event,
    extDeviceId: input.deviceId ?? null,
    events,
    phoneFilters,
  });
  return { id: extId, url: parsedUrl.data, event: input.event, deviceId: input.deviceId ?? null };
}

/** DELETE /webhooks/{id}: 204 whether it existed or not (SMSGate's semantics). */
export async function deleteSmsgateWebhook(executor: Executor, accountId: string, extId: string): Promise<void> {
  await deleteExternalWebhook(executor, accountId, extId);
}
