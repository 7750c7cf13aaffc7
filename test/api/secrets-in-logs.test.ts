import { describe, expect, it } from 'vitest';
import { GET as appSettings } from '@/app/api/mobile/v1/settings/route';
import { POST as createKey } from '@/app/api/v1/auth/api-keys/route';
import { POST as bindConfirm } from '@/app/api/v1/auth/bind/confirm/route';
import { POST as bindRequest } from '@/app/api/v1/auth/bind/request-code/route';
import { POST as requestSignInCode } from '@/app/api/v1/auth/sign-in/request-code/route';
import { POST as registerDevice } from '@/app/api/v1/phones/register-device/route';
import { GET as listPhones } from '@/app/api/v1/phones/route';
import { POST as verifySim } from '@/app/api/v1/phones/verify-sim/route';
import { POST as rotateSecret } from '@/app/api/v1/webhooks/[id]/rotate-secret/route';
import { GET as webhookSecret } from '@/app/api/v1/webhooks/[id]/secret/route';
import { POST as createWebhook } from '@/app/api/v1/webhooks/route';
import { devInboxCode, testNumber } from '../fixtures';
import { call } from '../http';
import { captureLogs } from '../logs';
import { withTestDatabase } from '../setup-db';
import { newPairingCode, pullAs, registerWith, signedCallback } from '../smsgate-app';

const { db } = withTestDatabase();
const logs = captureLogs();

const inboxCode = (to: string) => devInboxCode(db(), to);

describe('the server log at debug level, through a whole flow', () => {
  it('holds none of the keys, codes, tokens and secrets the flow created', async () => {
    const secrets: string[] = [];
    const keep = <T extends string>(value: T): T => {
      secrets.push(value);
      return value;
    };

    // Activation: SIM code, device key, email code, account key.
    const phone = testNumber();
    const email = `secrets-${crypto.randomUUID()}@example.test`;
    const registered = await call(registerDevice, { body: { phone_number: phone } });
    const verified = await call(verifySim, {
      body: { device_id: registered.body.device_id, code: keep(await inboxCode(phone)) },
    });
    const deviceKey = keep(verified.body.device_key as string);
    expect((await call(bindRequest, { body: { email }, apiKey: deviceKey })).status).toBe(202);
    expect((await call(bindConfirm, { body: { code: keep(await inboxCode(email)) }, apiKey: deviceKey })).status).toBe(
      200,
    );
    const created = await call(createKey, { body: { name: 'ci' }, apiKey: deviceKey });
    const apiKey = keep(created.body.key as string);

    // Webhook secrets: shown at creation, on demand, and after a rotation.
    const hook = await call(createWebhook, {
      body: { url: 'https://hooks.example.test/x', events: ['message.sent'] },
      apiKey,
    });
    keep(hook.body.secret as string);
    keep((await call(webhookSecret, { params: { id: hook.body.id }, apiKey })).body.secret as string);
    keep((await call(rotateSecret, { method: 'POST', params: { id: hook.body.id }, apiKey })).body.secret as string);

    // The SMSGate app: pairing code, token, signing key, a signed callback.
    const phones = await call(listPhones, { apiKey });
    const phoneId = phones.body.data[0].id as string;
    const account = { apiKey, phoneId } as Parameters<typeof newPairingCode>[0];
    const code = keep(await newPairingCode(account, phoneId));
    const paired = await registerWith(`Code ${code}`);
    const token = keep(paired.body.token as string);
    const signingKey = keep(
      (await call(appSettings, { headers: { authorization: `Bearer ${token}` } })).body.webhooks.signing_key as string,
    );
    const app = { deviceId: paired.body.id as string, token, signingKey, phone };
    const [check] = await pullAs(app);
    await signedCallback(app, 'sms:received', { messageId: 'm1', message: check!.textMessage.text, sender: phone });

    // A browser sign-in code, and refused credentials (a wrong key must not be logged either).
    expect((await call(requestSignInCode, { body: { email } })).status).toBe(202);
    keep(await inboxCode(email));
    const wrongKey = keep(`sk_${'Z'.repeat(40)}`);
    expect((await call(listPhones, { apiKey: wrongKey })).status).toBe(401);

    expect(secrets.length).toBeGreaterThanOrEqual(11);
    expect(logs.lines().length).toBeGreaterThan(0);
    for (const line of logs.lines()) {
      for (const secret of secrets) expect(line, 'a log line holds a secret').not.toContain(secret);
    }
  });
});
