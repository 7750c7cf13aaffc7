import { beforeAll, describe, expect, it } from 'vitest';
import { GET as smsgateListMessages, POST as smsgateSend } from '@/app/api/3rdparty/v1/messages/route';
import { POST as createKey, GET as listKeys } from '@/app/api/v1/auth/api-keys/route';
import { GET as listMessages, POST as sendMessage } from '@/app/api/v1/messages/route';
import { GET as listPhones } from '@/app/api/v1/phones/route';
import { createTestAccount, type TestAccount } from '../fixtures';
import { call } from '../http';
import { addTestMember, asMember, ownerOf } from '../member-fixtures';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

let account: TestAccount;
beforeAll(async () => {
  account = await createTestAccount(db(), { credits: 10 });
});

async function keyOf(role: string | undefined, by: { apiKey?: string; headers?: Record<string, string> }) {
  const res = await call(createKey, { body: { name: `key ${role}`, ...(role ? { role } : {}) }, ...by });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; key: string; role: string | null };
}

function basic(key: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`user:${key}`).toString('base64')}` };
}

describe('API keys with a role', () => {
  it('a viewer key reads and cannot send: 403 FORBIDDEN naming the roles that may', async () => {
    const viewer = await keyOf('viewer', { apiKey: account.apiKey });
    expect(viewer.role).toBe('viewer');
    expect((await call(listMessages, { apiKey: viewer.key })).status).toBe(200);
    expect((await call(listPhones, { apiKey: viewer.key })).status).toBe(200);
    const send = await call(sendMessage, {
      body: { to: '+14155550199', from: account.phone, content: 'hi' },
      apiKey: viewer.key,
    });
    expect(send.status).toBe(403);
    expect(send.body).toMatchObject({
      code: 'FORBIDDEN',
      detail:
        "This API key's role (viewer) may not send or change messages; an owner, admin, developer or operator may.",
    });
    // Keys are closed to a viewer: it cannot make itself a stronger one.
    expect((await call(createKey, { body: { name: 'x' }, apiKey: viewer.key })).status).toBe(403);
  });

  it('a viewer key cannot send through SMSGate’s integrator API either, and reads there', async () => {
    const viewer = await keyOf('viewer', { apiKey: account.apiKey });
    const send = await call(smsgateSend, {
      path: '/api/3rdparty/v1/messages',
      body: { textMessage: { text: 'hi' }, phoneNumbers: ['+14155550199'] },
      headers: basic(viewer.key),
    });
    expect(send.status).toBe(403);
    expect(send.text).toContain('(viewer) may not send');
    const list = await call(smsgateListMessages, { path: '/api/3rdparty/v1/messages', headers: basic(viewer.key) });
    expect(list.status).toBe(200);
    // An operator key sends there.
    const operator = await keyOf('operator', { apiKey: account.apiKey });
    const sent = await call(smsgateSend, {
      path: '/api/3rdparty/v1/messages',
      body: { textMessage: { text: 'hi' }, phoneNumbers: ['+14155550199'] },
      headers: basic(operator.key),
    });
    expect(sent.status, sent.text).toBeLessThan(300);
  });

  it('a developer’s key gets the developer role unless a lower one is asked; never a higher one', async () => {
    const developer = await addTestMember(db(), account.accountId, 'developer');
    const byDefault = await keyOf(undefined, { headers: asMember(developer) });
    expect(byDefault.role).toBe('developer');
    const lower = await keyOf('operator', { headers: asMember(developer) });
    expect(lower.role).toBe('operator');
    for (const role of ['admin', 'owner', null]) {
      const res = await call(createKey, { body: { name: 'up', role }, headers: asMember(developer) });
      expect(res.status, String(role)).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    }
    const listed = await call(listKeys, { apiKey: account.apiKey, path: '/api/v1/auth/api-keys?limit=100' });
    expect(listed.body.data.find((k: { id: string }) => k.id === lower.id)).toMatchObject({
      role: 'operator',
      created_by: developer.email,
    });
  });

  it('an owner’s key may do everything unless given a role', async () => {
    const owner = await ownerOf(db(), account.accountId, account.email);
    const key = await keyOf(undefined, { headers: asMember(owner) });
    expect(key.role).toBeNull();
    const listed = await call(listKeys, { apiKey: account.apiKey, path: '/api/v1/auth/api-keys?limit=100' });
    expect(listed.body.data.find((k: { id: string }) => k.id === key.id)).toMatchObject({
      role: null,
      created_by: account.email,
    });
    const bounded = await keyOf('viewer', { headers: asMember(owner) });
    expect(bounded.role).toBe('viewer');
  });
});
