import { afterEach, describe, expect, it } from 'vitest';
import { GET as auditLog } from '@/app/api/v1/audit-log/route';
import { GET as readSettings, PATCH as updateSettings } from '@/app/api/v1/settings/data/route';
import { describeAuthCases } from '../auth-cases';
import { createTestAccount, sharedTestAccount } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();
const { fixture } = sharedTestAccount(db);

const RETENTION_VARIABLES = [
  'RETENTION_MESSAGE_CONTENT_DAYS',
  'RETENTION_MESSAGE_CONTENT_MODE',
  'RETENTION_HASH_COUNTERPART',
  'RETENTION_AUDIT_DAYS',
] as const;
afterEach(() => {
  for (const name of RETENTION_VARIABLES) delete process.env[name];
});

describeAuthCases('GET /api/v1/settings/data', { handler: readSettings, request: {}, accepts: 'account', fixture });
describeAuthCases('PATCH /api/v1/settings/data', {
  handler: updateSettings,
  request: { method: 'PATCH', body: { content_days: 30 } },
  accepts: 'account',
  fixture,
});

describe('GET /api/v1/settings/data', () => {
  it('answers the instance defaults: content kept forever, hashed when a limit is set', async () => {
    const account = await createTestAccount(db());
    const res = await call(readSettings, { apiKey: account.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message_content: { days: null, mode: 'hash', hash_counterpart: false },
      account: { content_days: null, content_mode: null, hash_counterpart: null },
      instance: {
        content_days: null,
        content_mode: 'hash',
        hash_counterpart: false,
        webhook_deliveries_days: 30,
        heartbeats_days: 30,
        audit_days: 365,
      },
    });
  });

  it('reads the instance from the environment', async () => {
    process.env.RETENTION_MESSAGE_CONTENT_DAYS = '90';
    process.env.RETENTION_MESSAGE_CONTENT_MODE = 'delete';
    process.env.RETENTION_AUDIT_DAYS = '730';
    const account = await createTestAccount(db());
    const res = await call(readSettings, { apiKey: account.apiKey });
    expect(res.body.instance).toMatchObject({ content_days: 90, content_mode: 'delete', audit_days: 730 });
    expect(res.body.message_content).toEqual({ days: 90, mode: 'delete', hash_counterpart: false });
  });
});

describe('PATCH /api/v1/settings/data', () => {
  it('sets the account’s own limits, records them in the audit log, and null follows the instance again', async () => {
    const account = await createTestAccount(db());
    const res = await call(updateSettings, {
      method: 'PATCH',
      body: { content_days: 14, content_mode: 'delete', hash_counterpart: true },
      apiKey: account.apiKey,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.message_content).toEqual({ days: 14, mode: 'delete', hash_counterpart: true });
    expect(res.body.account).toEqual({ content_days: 14, content_mode: 'delete', hash_counterpart: true });

    const audit = await call(auditLog, {
      path: '/api/v1/audit-log?action=data_settings.updated',
      apiKey: account.apiKey,
    });
    expect(audit.body.data).toHaveLength(1);
    expect(audit.body.data[0]).toMatchObject({
      action: 'data_settings.updated',
      details: { content_days: 14, content_mode: 'delete', hash_counterpart: true },
    });

    const reset = await call(updateSettings, {
      method: 'PATCH',
      body: { content_days: null },
      apiKey: account.apiKey,
    });
    expect(reset.body.account).toEqual({ content_days: null, content_mode: 'delete', hash_counterpart: true });
    expect(reset.body.message_content.days).toBeNull();
  });

  it('refuses to keep more than the instance, naming the field', async () => {
    process.env.RETENTION_MESSAGE_CONTENT_DAYS = '30';
    process.env.RETENTION_MESSAGE_CONTENT_MODE = 'delete';
    process.env.RETENTION_HASH_COUNTERPART = '1';
    const account = await createTestAccount(db());
    for (const [body, path] of [
      [{ content_days: 31 }, 'content_days'],
      [{ content_mode: 'hash' }, 'content_mode'],
      [{ hash_counterpart: false }, 'hash_counterpart'],
    ] as const) {
      const res = await call(updateSettings, { method: 'PATCH', body, apiKey: account.apiKey });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.contentType).toBe('application/problem+json');
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(res.body.errors).toEqual([expect.objectContaining({ path })]);
    }
    const fewer = await call(updateSettings, { method: 'PATCH', body: { content_days: 7 }, apiKey: account.apiKey });
    expect(fewer.status).toBe(200);
    expect(fewer.body.message_content).toEqual({ days: 7, mode: 'delete', hash_counterpart: true });
  });

  it('answers 400 for ugly input and changes nothing', async () => {
    const account = await createTestAccount(db());
    const bodies: unknown[] = [
      { content_days: 0 },
      { content_days: -1 },
      { content_days: 1.5 },
      { content_days: '30' },
      { content_days: 36_501 },
      { content_days: 1e308 },
      { content_mode: 'shred' },
      { content_mode: 'HASH' },
      { hash_counterpart: 'yes' },
      { retention: 5 },
      { content_days: 5, admin: true },
      [],
      null,
      'content_days=5',
    ];
    for (const body of bodies) {
      const res = await call(updateSettings, { method: 'PATCH', body, apiKey: account.apiKey });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.contentType).toBe('application/problem+json');
    }
    const malformed = await call(updateSettings, {
      method: 'PATCH',
      rawBody: '{"content_days": ',
      headers: { 'content-type': 'application/json' },
      apiKey: account.apiKey,
    });
    expect(malformed.status).toBe(400);
    const after = await call(readSettings, { apiKey: account.apiKey });
    expect(after.body.account).toEqual({ content_days: null, content_mode: null, hash_counterpart: null });
  });

  it('changes only the calling account', async () => {
    const a = await createTestAccount(db());
    const b = await createTestAccount(db());
    await call(updateSettings, { method: 'PATCH', body: { content_days: 3 }, apiKey: a.apiKey });
    const other = await call(readSettings, { apiKey: b.apiKey });
    expect(other.body.account.content_days).toBeNull();
    const own = await call(readSettings, { apiKey: a.apiKey });
    expect(own.body.account.content_days).toBe(3);
    const audit = await call(auditLog, { path: '/api/v1/audit-log?action=data_settings.updated', apiKey: b.apiKey });
    expect(audit.body.data).toEqual([]);
  });
});
