import http from 'node:http';
import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activateDevice } from '@/tools/device-sim/activate';
import { DeviceClient } from '@/tools/device-sim/client';
import { built, type Running, startServer } from './start-server';

/**
 * The official twilio client, unchanged but for `client.api.baseUrl`, against `npm start`'s real
 * server: Next serves the Twilio paths (`Messages.json`, `{Sid}.json`) at the host root, through the
 * route wrapper's Host check and security headers. Needs a build (test/start-server.ts).
 */

let server: Running | undefined;

beforeAll(async () => {
  if (!built) return;
  server = await startServer({ API_KEY_RATE_LIMIT: '0' });
}, 90_000);

afterAll(async () => {
  if (!server) return;
  server.child.kill('SIGTERM');
  await server.exited;
});

describe.runIf(built)('the twilio npm client against npm start', () => {
  it('sends, fetches, lists and reads the account, and the surface keeps the Host check', async () => {
    const baseUrl = server!.baseUrl;
    const phone = `+1415555${String(Date.now()).slice(-4)}`;
    const activation = await activateDevice(new DeviceClient({ baseUrl }), {
      phone,
      email: `twilio-server-${process.pid}@example.test`,
      apiKeyName: 'twilio',
    });
    const created = await fetch(`${baseUrl}/api/v1/twilio/auth-token`, {
      method: 'POST',
      headers: { 'x-api-key': activation.apiKey! },
    });
    expect(created.status).toBe(201);
    const creds = (await created.json()) as { account_sid: string; auth_token: string };

    const client = twilio(creds.account_sid, creds.auth_token);
    client.api.baseUrl = baseUrl;
    const account = await client.api.v2010.accounts(creds.account_sid).fetch();
    expect(account.status).toBe('active');
    const sent = await client.messages.create({ from: phone, to: '+14155550123', body: 'Hello from Twilio code' });
    expect(sent).toMatchObject({ status: 'queued', from: phone, body: 'Hello from Twilio code' });
    expect((await client.messages(sent.sid).fetch()).sid).toBe(sent.sid);
    expect((await client.messages.list({ limit: 10 })).map((m) => m.sid)).toContain(sent.sid);
    expect((await client.incomingPhoneNumbers.list()).map((n) => n.phoneNumber)).toEqual([phone]);

    const answer = await fetch(`${baseUrl}/2010-04-01/Accounts/${creds.account_sid}.json`, {
      headers: { authorization: `Basic ${Buffer.from(`${creds.account_sid}:${creds.auth_token}`).toString('base64')}` },
    });
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(answer.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
    // A rebound name (DNS rebinding): refused before any work, in Twilio's error body.
    const rebound = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      http
        .get(
          `${baseUrl}/2010-04-01/Accounts/${creds.account_sid}.json`,
          { headers: { host: 'attacker.example' } },
          (res) => {
            let body = '';
            res.on('data', (chunk: Buffer) => {
              body += chunk.toString();
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          },
        )
        .on('error', reject);
    });
    expect(rebound.status).toBe(421);
    expect(JSON.parse(rebound.body)).toMatchObject({ code: 20421, status: 421 });
  });
});
