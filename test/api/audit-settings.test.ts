import { describe, expect, it } from 'vitest';
import * as smsgateSettings from '@/app/api/3rdparty/v1/settings/route';
import { GET as auditLog } from '@/app/api/v1/audit-log/route';
import { PATCH as updateAutomationSettings } from '@/app/api/v1/inbound-rules/settings/route';
import { DELETE as removeOptOut } from '@/app/api/v1/opt-outs/[phone]/route';
import { POST as addOptOut } from '@/app/api/v1/opt-outs/route';
import { PATCH as updateGroup } from '@/app/api/v1/phone-groups/[id]/route';
import { POST as createGroup } from '@/app/api/v1/phone-groups/route';
import { POST as pairingCode } from '@/app/api/v1/phones/[id]/pairing-code/route';
import { POST as simCheck } from '@/app/api/v1/phones/[id]/sim-check/route';
import { PATCH as updateSending } from '@/app/api/v1/settings/sending/route';
import { KEY_PREFIX_LENGTH } from '@/lib/auth/keys';
import { createTestAccount, type TestAccount, testNumber } from '../fixtures';
import { type CallOptions, call, fromSocket } from '../http';
import { withTestDatabase } from '../setup-db';
import { codeIn, pairApp, pullAs, signedCallback } from '../smsgate-app';

process.env.APP_SECRET ??= 'test-app-secret-for-webhooks-0123456789abcdef';

const { db } = withTestDatabase();

type Entry = {
  action: string;
  actor: { kind: string; label: string | null };
  ip: string | null;
  target: string | null;
  details: Record<string, unknown>;
};

const ADDRESS = '203.0.113.61';

/** Calls a route with the account's key from ADDRESS, as the audit log should name it. */
function asAccount(account: TestAccount, handler: Parameters<typeof call>[0], options: CallOptions = {}) {
  return call(handler, { apiKey: account.apiKey, ...options, headers: { ...fromSocket(ADDRESS), ...options.headers } });
}

async function entriesOf(account: TestAccount, action: string): Promise<Entry[]> {
  const res = await call(auditLog, { path: `/api/v1/audit-log?limit=100&action=${action}`, apiKey: account.apiKey });
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

/** The newest entry of the action, checked to name the account key that acted and its address. */
async function byTheKey(account: TestAccount, action: string): Promise<Entry> {
  const [entry] = await entriesOf(account, action);
  expect(entry, `no ${action} entry`).toBeDefined();
  expect(entry!.actor).toEqual({ kind: 'api_key', label: account.apiKey.slice(0, KEY_PREFIX_LENGTH) });
  expect(entry!.ip).toBe(ADDRESS);
  return entry!;
}

describe('audit entries for pairing, SIM proof and what the account sends', () => {
  it('a pairing code issued: the phone and the expiry, never the code', async () => {
    const account = await createTestAccount(db());
    const res = await asAccount(account, pairingCode, { method: 'POST', params: { id: account.phoneId } });
    expect(res.status).toBe(201);
    const entry = await byTheKey(account, 'pairing_code.issued');
    expect(entry.target).toBe(account.phoneId);
    expect(entry.details).toEqual({ phone: account.phone, expires_at: res.body.expires_at });
    expect(JSON.stringify(entry)).not.toContain(res.body.code);
  });

  it('a SIM verified by the code typed in the dashboard, and one verified by its loopback', async () => {
    const account = await createTestAccount(db());
    const app = await pairApp(account);
    const check = (await pullAs(app)).find((m) => m.textMessage.text.includes('SIM check'));
    const res = await asAccount(account, simCheck, {
      params: { id: account.phoneId },
      body: { code: codeIn(check!.textMessage.text) },
    });
    expect(res.status, res.text).toBe(200);
    const entry = await byTheKey(account, 'phone.sim_verified');
    expect(entry.target).toBe(account.phoneId);
    expect(entry.details).toEqual({ phone: account.phone, device_id: app.deviceId, method: 'code' });

    const other = await createTestAccount(db());
    const otherApp = await pairApp(other);
    const loop = (await pullAs(otherApp)).find((m) => m.textMessage.text.includes('SIM check'));
    const back = await signedCallback(otherApp, 'sms:received', {
      messageId: `loop-${loop!.id}`,
      message: loop!.textMessage.text,
      sender: otherApp.phone,
      receivedAt: new Date().toISOString(),
    });
    expect(back.status).toBe(200);
    const [looped] = await entriesOf(other, 'phone.sim_verified');
    expect(looped?.details).toEqual({ phone: other.phone, device_id: otherApp.deviceId, method: 'loopback' });
  });

  it('PATCH /api/v1/settings/sending, allowed_countries included, and a group’s sending overrides', async () => {
    const account = await createTestAccount(db());
    const res = await asAccount(account, updateSending, {
      method: 'PATCH',
      body: { allowed_countries: ['US', 'CA'], max_attempts: 2 },
    });
    expect(res.status, res.text).toBe(200);
    const entry = await byTheKey(account, 'sending_settings.updated');
    expect(entry.target).toBeNull();
    expect(entry.details).toEqual({ allowed_countries: ['US', 'CA'], max_attempts: 2 });

    const group = await asAccount(account, createGroup, { body: { name: 'Night shift' } });
    const patched = await asAccount(account, updateGroup, {
      method: 'PATCH',
      params: { id: String(group.body.id) },
      body: { sending: { allowed_countries: ['GB'] } },
    });
    expect(patched.status, patched.text).toBe(200);
    const groupEntry = await byTheKey(account, 'sending_settings.updated');
    expect(groupEntry.target).toBe(String(group.body.id));
    expect(groupEntry.details).toEqual({ allowed_countries: ['GB'] });
  });

  it('the HELP text changed', async () => {
    const account = await createTestAccount(db());
    const res = await asAccount(account, updateAutomationSettings, {
      method: 'PATCH',
      body: { help_reply: 'Acme support: call 555-0100.' },
    });
    expect(res.status, res.text).toBe(200);
    const entry = await byTheKey(account, 'help_reply.updated');
    expect(entry.details).toEqual({ help_reply: 'Acme support: call 555-0100.' });
  });

  it('an opt-out added and removed by hand', async () => {
    const account = await createTestAccount(db());
    const phone = testNumber();
    expect((await asAccount(account, addOptOut, { body: { phone } })).status).toBe(201);
    const added = await byTheKey(account, 'opt_out.added');
    expect(added).toMatchObject({ target: phone, details: { phone } });
    // Adding it again changes nothing and writes nothing.
    expect((await asAccount(account, addOptOut, { body: { phone } })).status).toBe(200);
    expect(await entriesOf(account, 'opt_out.added')).toHaveLength(1);
    const removed = await asAccount(account, removeOptOut, { method: 'DELETE', params: { phone } });
    expect(removed.status).toBe(204);
    expect(await byTheKey(account, 'opt_out.removed')).toMatchObject({ target: phone, details: { phone } });
  });

  it('SMSGate settings: the pacing of every phone, the signing key set (never shown in the log), and the key read', async () => {
    const account = await createTestAccount(db());
    const basic = { authorization: `Basic ${Buffer.from(`u:${account.apiKey}`).toString('base64')}` };
    const put = await call(smsgateSettings.PUT, {
      method: 'PUT',
      headers: { ...basic, ...fromSocket(ADDRESS) },
      body: {
        messages: { limit_period: 'PerMinute', limit_value: 12 },
        webhooks: { signing_key: 'a-signing-key-nobody-may-read' },
      },
    });
    expect(put.status, put.text).toBe(200);
    const changed = await byTheKey(account, 'smsgate_settings.updated');
    expect(changed.details).toEqual({
      sections: ['messages', 'webhooks'],
      messages_per_minute: 12,
      phones: 1,
      signing_key_set: true,
    });
    expect(JSON.stringify(changed)).not.toContain('a-signing-key-nobody-may-read');
    const read = await call(smsgateSettings.GET, { headers: { ...basic, ...fromSocket(ADDRESS) } });
    expect(read.status).toBe(200);
    const revealed = await byTheKey(account, 'smsgate_signing_key.revealed');
    expect(JSON.stringify(revealed)).not.toContain('a-signing-key-nobody-may-read');
  });
});
