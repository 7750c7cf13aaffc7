import { encode } from 'next-auth/jwt';
import { describe, expect, it } from 'vitest';
import { GET as auditLog } from '@/app/api/v1/audit-log/route';
import { DELETE as revokeKey } from '@/app/api/v1/auth/api-keys/[id]/route';
import { POST as createKey } from '@/app/api/v1/auth/api-keys/route';
import { POST as transfer } from '@/app/api/v1/credits/transfer/route';
import { POST as createGroup } from '@/app/api/v1/phone-groups/route';
import { DELETE as revokeDevice } from '@/app/api/v1/phones/[id]/devices/[device_id]/route';
import { DELETE as deletePhone } from '@/app/api/v1/phones/[id]/route';
import { POST as addPhone } from '@/app/api/v1/phones/route';
import { POST as rotateSecret } from '@/app/api/v1/webhooks/[id]/rotate-secret/route';
import { DELETE as deleteWebhook, PATCH as updateWebhook } from '@/app/api/v1/webhooks/[id]/route';
import { GET as revealSecret } from '@/app/api/v1/webhooks/[id]/secret/route';
import { POST as createWebhook } from '@/app/api/v1/webhooks/route';
import { authorizeApiKey, authorizeEmailCode } from '@/lib/auth/sign-in';
import { appSecret } from '@/lib/config';
import { setPlan } from '@/lib/ops/account-plan';
import { grantCredits } from '@/lib/ops/grant';
import { createTestAccount, type TestAccount, testNumber } from '../fixtures';
import { call, fromSocket } from '../http';
import { withTestDatabase } from '../setup-db';
import { pairApp } from '../smsgate-app';

const { db } = withTestDatabase();

type Entry = {
  id: string;
  action: string;
  actor: { kind: string; label: string | null };
  ip: string | null;
  target: string | null;
  details: Record<string, unknown>;
  created_at: string;
};

async function entries(account: TestAccount, query = ''): Promise<Entry[]> {
  const res = await call(auditLog, { path: `/api/v1/audit-log?limit=100${query}`, apiKey: account.apiKey });
  expect(res.status).toBe(200);
  return res.body.data;
}

const newest = async (account: TestAccount, action: string) => (await entries(account, `&action=${action}`))[0];

describe('the audit log', () => {
  it('records key creation and revocation with the acting key’s prefix and the client address', async () => {
    const account = await createTestAccount(db());
    const created = await call(createKey, {
      body: { name: 'ci' },
      apiKey: account.apiKey,
      headers: fromSocket('203.0.113.40'),
    });
    expect(created.status).toBe(201);
    await call(revokeKey, {
      method: 'DELETE',
      params: { id: created.body.id },
      apiKey: account.apiKey,
      headers: fromSocket('203.0.113.40'),
    });
    const log = await entries(account);
    expect(log.map((entry) => entry.action)).toEqual(['api_key.revoked', 'api_key.created']);
    for (const entry of log) {
      expect(entry).toMatchObject({
        actor: { kind: 'api_key', label: account.apiKey.slice(0, 8) },
        ip: '203.0.113.40',
        target: created.body.id,
      });
    }
    expect(log[1]?.details).toEqual({ name: 'ci', prefix: created.body.prefix });
    expect(JSON.stringify(log)).not.toContain(created.body.key);
    expect(JSON.stringify(log)).not.toContain(account.apiKey);
  });

  it('names the session’s email when the dashboard acts', async () => {
    const account = await createTestAccount(db());
    const token = await encode({
      token: { accountId: account.accountId, sessionVersion: 0 },
      secret: appSecret(),
      maxAge: 3600,
    });
    const res = await call(createKey, {
      body: { name: 'from the dashboard' },
      headers: { cookie: `next-auth.session-token=${token}`, origin: 'http://localhost:3000' },
    });
    expect(res.status).toBe(201);
    expect(await newest(account, 'api_key.created')).toMatchObject({
      actor: { kind: 'session', label: account.email },
    });
  });

  it('records every webhook change, secret reveals and rotations included, never the secret', async () => {
    const account = await createTestAccount(db());
    const hook = await call(createWebhook, {
      body: { url: 'https://hooks.example.test/a', events: ['message.sent'] },
      apiKey: account.apiKey,
    });
    const id = hook.body.id as string;
    await call(updateWebhook, { method: 'PATCH', params: { id }, body: { enabled: false }, apiKey: account.apiKey });
    const shown = await call(revealSecret, { params: { id }, apiKey: account.apiKey });
    const rotated = await call(rotateSecret, { method: 'POST', params: { id }, apiKey: account.apiKey });
    await call(deleteWebhook, { method: 'DELETE', params: { id }, apiKey: account.apiKey });
    const log = await entries(account);
    expect(log.map((entry) => entry.action)).toEqual([
      'webhook.deleted',
      'webhook.secret_rotated',
      'webhook.secret_revealed',
      'webhook.updated',
      'webhook.created',
    ]);
    expect(log.every((entry) => entry.target === id)).toBe(true);
    expect(log[3]?.details).toEqual({ changed: ['enabled'] });
    for (const secret of [hook.body.secret, shown.body.secret, rotated.body.secret]) {
      expect(JSON.stringify(log)).not.toContain(secret);
    }
  });

  it('records a transfer in its own transaction: a refused transfer leaves no entry', async () => {
    const account = await createTestAccount(db(), { plan: 'pro', credits: 10 });
    const group = await call(createGroup, { body: { name: 'Sales' }, apiKey: account.apiKey });
    expect(
      (await call(transfer, { body: { to_group: group.body.id, amount: 4 }, apiKey: account.apiKey })).status,
    ).toBe(200);
    expect(
      (await call(transfer, { body: { to_group: group.body.id, amount: 99 }, apiKey: account.apiKey })).status,
    ).toBe(400);
    const transfers = await entries(account, '&action=credits.transferred');
    expect(transfers).toHaveLength(1);
    expect(transfers[0]?.details).toEqual({ from_group: account.defaultGroupId, to_group: group.body.id, amount: 4 });
  });

  it('records operator grants and plan changes as the operator', async () => {
    const account = await createTestAccount(db());
    await grantCredits(db(), { groupId: account.defaultGroupId, amount: 25, note: 'goodwill' });
    await setPlan(db(), account.email, 'pro');
    expect(await newest(account, 'credits.granted')).toMatchObject({
      actor: { kind: 'operator' },
      target: String(account.defaultGroupId),
      details: { amount: 25, note: 'goodwill' },
    });
    expect(await newest(account, 'plan.changed')).toMatchObject({
      actor: { kind: 'operator' },
      details: { from: 'free', to: 'pro' },
    });
  });

  it('records phones added and paired, and devices revoked', async () => {
    const account = await createTestAccount(db(), { plan: 'pro' });
    const number = testNumber();
    const added = await call(addPhone, { body: { phone: number }, apiKey: account.apiKey });
    expect(await newest(account, 'phone.added')).toMatchObject({ target: added.body.id, details: { phone: number } });
    const app = await pairApp(account);
    expect(await newest(account, 'phone.paired')).toMatchObject({
      actor: { kind: 'device', label: app.token.slice(0, 8) },
      target: account.phoneId,
    });
    await call(revokeDevice, {
      method: 'DELETE',
      params: { id: account.phoneId, device_id: app.deviceId },
      apiKey: account.apiKey,
    });
    expect(await newest(account, 'device.revoked')).toMatchObject({ target: app.deviceId });
    await call(deletePhone, { method: 'DELETE', params: { id: added.body.id }, apiKey: account.apiKey });
    expect(await newest(account, 'phone.removed')).toMatchObject({ target: added.body.id, details: { phone: number } });
  });

  it('records sign-ins and failed sign-ins with the address they came from', async () => {
    const account = await createTestAccount(db());
    expect(await authorizeEmailCode(db(), { email: account.email, code: '000000' }, { ip: '198.51.100.5' })).toBeNull();
    expect(await authorizeApiKey(db(), { key: account.apiKey }, { ip: '198.51.100.6' })).not.toBeNull();
    expect(await newest(account, 'session.sign_in_failed')).toMatchObject({
      actor: { kind: 'anonymous', label: account.email },
      ip: '198.51.100.5',
      details: { method: 'email_code' },
    });
    expect(await newest(account, 'session.signed_in')).toMatchObject({
      actor: { kind: 'session', label: account.email },
      ip: '198.51.100.6',
      details: { method: 'api_key', key_prefix: account.apiKey.slice(0, 8) },
    });
  });

  it('is paginated newest first, filtered by action, and shows another account nothing', async () => {
    const account = await createTestAccount(db());
    for (let i = 0; i < 3; i++) await call(createKey, { body: { name: `k${i}` }, apiKey: account.apiKey });
    const first = await call(auditLog, { path: '/api/v1/audit-log?limit=2', apiKey: account.apiKey });
    expect(first.body.data).toHaveLength(2);
    const second = await call(auditLog, {
      path: `/api/v1/audit-log?limit=2&cursor=${first.body.next_cursor}`,
      apiKey: account.apiKey,
    });
    expect(second.body.data).toHaveLength(1);
    expect(second.body.next_cursor).toBeNull();
    const other = await createTestAccount(db());
    expect(await entries(other)).toEqual([]);
    const bad = await call(auditLog, { path: '/api/v1/audit-log?action=nope', apiKey: account.apiKey });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe('action');
  });
});
