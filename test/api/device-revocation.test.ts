import { describe, expect, it } from 'vitest';
import { DELETE as revokeKey } from '@/app/api/v1/auth/api-keys/[id]/route';
import { POST as createKey, GET as listKeys } from '@/app/api/v1/auth/api-keys/route';
import { POST as bindConfirm } from '@/app/api/v1/auth/bind/confirm/route';
import { POST as bindRequest } from '@/app/api/v1/auth/bind/request-code/route';
import { POST as claim } from '@/app/api/v1/device/outbox/claim/route';
import { POST as heartbeat } from '@/app/api/v1/heartbeats/route';
import { POST as send } from '@/app/api/v1/messages/route';
import { DELETE as revokeDevice } from '@/app/api/v1/phones/[id]/devices/[device_id]/route';
import { GET as listDevices } from '@/app/api/v1/phones/[id]/devices/route';
import { DELETE as deletePhone } from '@/app/api/v1/phones/[id]/route';
import { POST as registerDevice } from '@/app/api/v1/phones/register-device/route';
import { POST as createPhone } from '@/app/api/v1/phones/route';
import { POST as verifySim } from '@/app/api/v1/phones/verify-sim/route';
import { listDevInbox } from '@/lib/dev-inbox/store';
import { createTestAccount, type TestAccount } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

async function codeSentTo(to: string): Promise<string> {
  const [item] = await listDevInbox(db(), { to, limit: 1 });
  if (!item?.code) throw new Error(`no code for ${to}`);
  return item.code;
}

/** A second device activated on a number the account already has, through the activation routes. */
async function activateSecondDevice(account: TestAccount): Promise<{ deviceId: string; deviceKey: string }> {
  const registered = await call(registerDevice, { body: { phone_number: account.phone } });
  expect(registered.status).toBe(201);
  const verified = await call(verifySim, {
    body: { device_id: registered.body.device_id, code: await codeSentTo(account.phone) },
  });
  const deviceKey = verified.body.device_key as string;
  expect((await call(bindRequest, { body: { email: account.email }, apiKey: deviceKey })).status).toBe(202);
  const confirmed = await call(bindConfirm, { body: { code: await codeSentTo(account.email) }, apiKey: deviceKey });
  expect(confirmed.body).toMatchObject({ status: 'activated', account_id: account.accountId });
  return { deviceId: registered.body.device_id, deviceKey };
}

describe('a removed phone’s device keys', () => {
  it('stop working when the phone is deleted, even after the number is added again and every sk_ key is revoked', async () => {
    const account = await createTestAccount(db());
    const second = await activateSecondDevice(account);
    // Activating the second device revoked the first one: one number, one live device key.
    expect((await call(claim, { body: {}, apiKey: account.deviceKey })).status).toBe(401);
    expect((await call(createKey, { body: { name: 'from device' }, apiKey: second.deviceKey })).status).toBe(201);

    expect(
      (await call(deletePhone, { method: 'DELETE', params: { id: account.phoneId }, apiKey: account.apiKey })).status,
    ).toBe(204);
    expect((await call(createPhone, { body: { phone: account.phone }, apiKey: account.apiKey })).status).toBe(201);
    const keys = await call(listKeys, { apiKey: account.apiKey });
    for (const key of keys.body.data) {
      await call(revokeKey, { method: 'DELETE', params: { id: key.id }, apiKey: account.apiKey });
    }

    const minted = await call(createKey, { body: { name: 'after removal' }, apiKey: second.deviceKey });
    expect(minted.status).toBe(401);
    expect(minted.body.code).toBe('UNAUTHENTICATED');
    expect((await call(claim, { body: {}, apiKey: second.deviceKey })).status).toBe(401);
    expect(
      (await call(heartbeat, { body: { phone: account.phone, status: 'online' }, apiKey: second.deviceKey })).status,
    ).toBe(401);
  });

  it('a phone added again does not hand its new messages to the old device', async () => {
    const account = await createTestAccount(db());
    // The device claimed before: its phone is remembered (lib/messages/device-phone.ts), and forgotten with it.
    expect((await call(claim, { body: {}, apiKey: account.deviceKey })).status).toBe(200);
    await call(deletePhone, { method: 'DELETE', params: { id: account.phoneId }, apiKey: account.apiKey });
    const again = await call(createPhone, { body: { phone: account.phone }, apiKey: account.apiKey });
    expect(again.status).toBe(201);
    const sent = await call(send, {
      body: { from: account.phone, to: '+14155550123', content: 'for the new device only' },
      apiKey: account.apiKey,
    });
    expect(sent.status).toBe(201);
    expect((await call(claim, { body: {}, apiKey: account.deviceKey })).status).toBe(401);
  });
});

describe('GET and DELETE /api/v1/phones/{id}/devices', () => {
  it('lists the phone’s devices with kind, key prefix and which one is current, and revokes one at once', async () => {
    const account = await createTestAccount(db());
    const second = await activateSecondDevice(account);
    const listed = await call(listDevices, { params: { id: account.phoneId }, apiKey: account.apiKey });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([
      expect.objectContaining({
        id: second.deviceId,
        kind: 'simulator',
        status: 'activated',
        current: true,
        key_prefix: second.deviceKey.slice(0, 8),
      }),
      expect.objectContaining({ id: account.deviceId, status: 'revoked', current: false }),
    ]);
    expect(JSON.stringify(listed.body)).not.toContain(second.deviceKey);

    const revoked = await call(revokeDevice, {
      method: 'DELETE',
      params: { id: account.phoneId, device_id: second.deviceId },
      apiKey: account.apiKey,
    });
    expect(revoked.status).toBe(204);
    expect((await call(claim, { body: {}, apiKey: second.deviceKey })).status).toBe(401);
    const again = await call(revokeDevice, {
      method: 'DELETE',
      params: { id: account.phoneId, device_id: second.deviceId },
      apiKey: account.apiKey,
    });
    expect(again.status).toBe(204);
    const unknown = await call(revokeDevice, {
      method: 'DELETE',
      params: { id: account.phoneId, device_id: crypto.randomUUID() },
      apiKey: account.apiKey,
    });
    expect(unknown.status).toBe(404);
  });
});
