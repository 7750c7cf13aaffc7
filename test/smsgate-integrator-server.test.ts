import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activateDevice } from '@/tools/device-sim/activate';
import { DeviceClient } from '@/tools/device-sim/client';
import { built, type Running, startServer } from './start-server';

/**
 * SMSGate's integrator API and the API catalog against `npm start`'s real server: Next serves
 * /.well-known/api-catalog (app/.well-known) and /3rdparty/v1 (the rewrite) through route(), and a
 * JWT from POST /3rdparty/v1/auth/token opens what its scope names (reference: android-sms-gateway/server
 * internal/sms-gateway/handlers/api_catalog.go and handlers/thirdparty/auth.go). Needs a build
 * (test/start-server.ts).
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

describe.runIf(built)('the integrator API and the API catalog against npm start', () => {
  it('serves the catalog at the host root and a JWT at /3rdparty/v1, with the API’s headers', async () => {
    const baseUrl = server!.baseUrl;
    const catalog = await fetch(`${baseUrl}/.well-known/api-catalog`);
    expect(catalog.status).toBe(200);
    expect(catalog.headers.get('content-type')).toBe(
      'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"',
    );
    expect(catalog.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
    const linkset = ((await catalog.json()) as { linkset: Array<{ anchor: string }> }).linkset;
    expect(linkset[0]?.anchor).toBe(`${baseUrl}/3rdparty/v1`);

    const activation = await activateDevice(new DeviceClient({ baseUrl }), {
      phone: `+1415556${String(Date.now()).slice(-4)}`,
      email: `sg-server-${process.pid}@example.test`,
      apiKeyName: 'smsgate',
    });
    const issued = await fetch(`${baseUrl}/3rdparty/v1/auth/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`login:${activation.apiKey}`).toString('base64')}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ scopes: ['devices:list'] }),
    });
    expect(issued.status).toBe(201);
    expect(issued.headers.get('link')).toBe('</.well-known/api-catalog>; rel="api-catalog"');
    const token = ((await issued.json()) as { access_token: string }).access_token;
    const devices = await fetch(`${baseUrl}/3rdparty/v1/devices`, { headers: { authorization: `Bearer ${token}` } });
    expect(devices.status).toBe(200);
    const refused = await fetch(`${baseUrl}/3rdparty/v1/messages`, { headers: { authorization: `Bearer ${token}` } });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({ message: 'scope required: messages:list' });
  });
});
