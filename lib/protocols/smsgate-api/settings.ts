import type { Executor } from '@/db';
import { recordAudit } from '@/lib/audit/record';
import { validationError } from '@/lib/errors';
import { validate } from '@/lib/http/parse';
import {
  type SettingsDocument,
  type SharedPacing,
  type SmsgateSettingsWrite,
  storedSmsgateSettings,
  writeSmsgateSettings,
} from '@/lib/integrations/smsgate-settings';
import { sealSigningKey, signingKeyOf } from '@/lib/integrations/smsgate-signing-key';
import { MAX_DAILY_CAP } from '@/lib/phones/limits';
import { updatePhoneBody } from '@/lib/phones/schemas';
import { WEEKDAYS } from '@/lib/settings/window';
import { withTransaction } from '@/lib/transactions';
import { z } from '@/lib/zod';

type Document = SettingsDocument;

const HH_MM = /^([01]\d|2[0-3]):[0-5]\d$/;

/** The parts of SMSGate's settings that mean something here; the rest is stored and echoed back. */
const mapped = z.object({
  messages: z
    .object({
      limit_period: z.enum(['Disabled', 'PerMinute', 'Per30Minutes', 'PerHour', 'PerDay']).optional(),
      limit_value: z.number().int().min(1).optional(),
      work_hours_enabled: z.boolean().optional(),
      work_hours_start: z.string().regex(HH_MM, 'HH:mm').optional(),
      work_hours_end: z.string().regex(HH_MM, 'HH:mm').optional(),
    })
    .optional(),
  webhooks: z.object({ signing_key: z.string().min(16, 'at least 16 characters').max(256).optional() }).optional(),
});

/**
 * `limit_value` means what the period makes of it, bounded as /api/v1 bounds the same pacing:
 * PerMinute is a phone's `messages_per_minute`, PerHour its `hourly_cap`, PerDay its `daily_cap`
 * (the same schemas, from PATCH /api/v1/phones/{id}); Per30Minutes, which Simgate only stores,
 * stays within a day's cap.
 */
const LIMIT_VALUE_BY_PERIOD: Record<string, z.ZodType> = {
  PerMinute: updatePhoneBody.shape.messages_per_minute.unwrap(),
  PerHour: updatePhoneBody.shape.hourly_cap.unwrap().unwrap(),
  PerDay: updatePhoneBody.shape.daily_cap.unwrap().unwrap(),
  Per30Minutes: z.number().int().min(1).max(MAX_DAILY_CAP),
};

/**
 * What a limit sets on every phone. SMSGate has one limit at a time: PerHour and PerDay set their
 * cap and clear the other, Disabled clears both; PerMinute sets the pace and leaves the caps.
 */
function limitWrite(period: string | undefined, value: number | undefined): LimitWrite {
  if (period === 'Disabled') return { hourlyCap: null, dailyCap: null };
  if (!value) return {};
  if (period === 'PerMinute') return { messagesPerMinute: value };
  if (period === 'PerHour') return { hourlyCap: value, dailyCap: null };
  if (period === 'PerDay') return { dailyCap: value, hourlyCap: null };
  return {};
}

type LimitWrite = Pick<SmsgateSettingsWrite, 'messagesPerMinute' | 'hourlyCap' | 'dailyCap'>;

const MAPPED_PERIODS = new Set(['PerHour', 'PerDay', 'Disabled']);

/**
 * The limit as the phones hold it now (a phone's caps may have changed since, through /api/v1):
 * PerMinute shows the pace they share; otherwise a shared hourly cap alone reads as PerHour, a
 * shared daily cap alone as PerDay, and no caps as Disabled (when the stored limit was one of those,
 * or none was stored). Phones that differ, or hold both caps, leave the stored limit as it is.
 */
function limitRead(messages: Record<string, unknown>, pacing: SharedPacing): Record<string, unknown> {
  const period = messages.limit_period as string | undefined;
  if (period === 'PerMinute') {
    return pacing.messagesPerMinute === undefined ? {} : { limit_value: pacing.messagesPerMinute };
  }
  if (period !== undefined && !MAPPED_PERIODS.has(period)) return {};
  const { hourlyCap: hourly, dailyCap: daily } = pacing;
  if (hourly === undefined || daily === undefined) return {};
  if (hourly !== null && daily === null) return { limit_period: 'PerHour', limit_value: hourly };
  if (daily !== null && hourly === null) return { limit_period: 'PerDay', limit_value: daily };
  if (hourly === null && daily === null && period !== undefined) return { limit_period: 'Disabled' };
  return {};
}

/** The pacing of the document as it will be applied (a PATCH merged into what is stored). */
function assertPacing(document: Document): void {
  const messages = document.messages ?? {};
  const schema = LIMIT_VALUE_BY_PERIOD[String(messages.limit_period)];
  if (!schema || messages.limit_value === undefined) return;
  validate(z.object({ messages: z.object({ limit_value: schema }) }), { messages }, 'body');
}

/** A settings document: an object of sections, each an object. */
function documentOf(body: unknown): Document {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw validationError('', 'settings must be an object');
  for (const [section, value] of Object.entries(body)) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw validationError(section, 'a settings section must be an object');
    }
  }
  const parsed = mapped.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw validationError(issue?.path.join('.') ?? '', issue?.message ?? 'invalid');
  }
  return body as Document;
}

/** GET /settings: what was stored, with the signing key and the send window as they are now. */
export async function getSmsgateSettings(executor: Executor, accountId: string): Promise<Document> {
  const account = await storedSmsgateSettings(executor, accountId);
  const document = structuredClone(account.stored);
  const stored = document.messages ?? {};
  const messages = { ...stored, ...limitRead(stored, account.pacing) };
  if (messages.limit_period === 'Disabled') delete messages.limit_value;
  if (account.window) {
    messages.work_hours_enabled = true;
    messages.work_hours_start = account.window.start;
    messages.work_hours_end = account.window.end;
  } else if (messages.work_hours_enabled !== undefined) {
    messages.work_hours_enabled = false;
  }
  return {
    ...document,
    ...(Object.keys(messages).length > 0 ? { messages } : {}),
    webhooks: { ...(document.webhooks ?? {}), signing_key: await signingKeyOf(executor, accountId) },
  };
}

/** GET /settings: the document, signing key included; showing the key is audited. */
export async function showSmsgateSettings(executor: Executor, accountId: string): Promise<Document> {
  return withTransaction(executor, async (tx) => {
    const document = await getSmsgateSettings(tx, accountId);
    await recordAudit(tx, { accountId, action: 'smsgate_signing_key.revealed' });
    return document;
  });
}

/**
 * What a change does to the account, for its audit entry: the pacing set on every phone, the send
 * window, whether a signing key was set (never the key), and which sections were given.
 */
function auditedChange(change: Document, next: Document, phoneCount: number): Record<string, unknown> {
  const messages = next.messages ?? {};
  const period = messages.limit_period;
  const value = messages.limit_value;
  return {
    sections: Object.keys(change).sort(),
    ...(period === 'PerMinute' && value ? { messages_per_minute: value, phones: phoneCount } : {}),
    ...(period === 'PerHour' && value ? { hourly_cap: value, daily_cap: null, phones: phoneCount } : {}),
    ...(period === 'PerDay' && value ? { daily_cap: value, hourly_cap: null, phones: phoneCount } : {}),
    ...(period === 'Disabled' ? { hourly_cap: null, daily_cap: null, phones: phoneCount } : {}),
    ...(typeof messages.work_hours_enabled === 'boolean' ? { work_hours_enabled: messages.work_hours_enabled } : {}),
    signing_key_set: typeof change.webhooks?.signing_key === 'string',
  };
}

/**
 * Applies what maps onto Simgate (pacing, send window, signing key) and stores the rest; the
 * answer shows the signing key, as GET does. `change` is what the caller sent, for the audit log.
 */
async function apply(executor: Executor, accountId: string, next: Document, change: Document): Promise<Document> {
  assertPacing(next);
  return withTransaction(executor, async (tx) => {
    const messages = next.messages ?? {};
    const period = messages.limit_period as string | undefined;
    const value = messages.limit_value as number | undefined;
    const start = (messages.work_hours_start as string | undefined) ?? '00:00';
    const end = (messages.work_hours_end as string | undefined) ?? '24:00';
    const key = next.webhooks?.signing_key;
    // The key is kept sealed on its own, never in the stored document.
    const { signing_key: _key, ...webhookRest } = next.webhooks ?? {};
    const phoneCount = await writeSmsgateSettings(tx, accountId, {
      ...limitWrite(period, value),
      ...(messages.work_hours_enabled === true
        ? { sendWindow: { time_zone: 'UTC', days: [...WEEKDAYS], start, end } }
        : messages.work_hours_enabled === false
          ? { sendWindow: null }
          : {}),
      ...(typeof key === 'string' ? { sealedSigningKey: sealSigningKey(key) } : {}),
      stored: { ...next, ...(next.webhooks ? { webhooks: webhookRest } : {}) },
    });
    await recordAudit(tx, {
      accountId,
      action: 'smsgate_settings.updated',
      details: auditedChange(change, next, phoneCount),
    });
    return getSmsgateSettings(tx, accountId);
  });
}

/** PUT /settings: the document replaces the stored one. */
export async function replaceSmsgateSettings(executor: Executor, accountId: string, body: unknown): Promise<Document> {
  const document = documentOf(body);
  return apply(executor, accountId, document, document);
}

/** PATCH /settings: each section given is merged into the stored one. */
export async function patchSmsgateSettings(executor: Executor, accountId: string, body: unknown): Promise<Document> {
  const change = documentOf(body);
  const current = (await storedSmsgateSettings(executor, accountId)).stored;
  const next: Document = { ...current };
  for (const [section, values] of Object.entries(change)) next[section] = { ...(current[section] ?? {}), ...values };
  return apply(executor, accountId, next, change);
}
