import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activateDevice } from '@/tools/device-sim/activate';
import { DeviceClient } from '@/tools/device-sim/client';
import { built, type Running, startServer } from './start-server';

/**
 * `npm start`'s server calls the routes whose requests stay open itself (lib/server/direct-routes.ts,
 * ADR 0013): its pacing of phone connections, which only that lane applies, shows the dispatch.
 */
describe.runIf(built)("npm start's direct lane for open phone requests", () => {
  let server: Running;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'simgate-direct-'));

  beforeAll(async () => {
    server = await startServer({ DATA_DIR: dataDir, PHONE_CONNECTS_PER_S: '1' });
  }, 120_000);

  afterAll(() => {
    server?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves the claim and the event stream through route(), paced past PHONE_CONNECTS_PER_S', async () => {
    const claim = (key: string) =>
      fetch(`${server.baseUrl}/api/v1/device/outbox/claim`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: '{"limit":1}',
      });
    // route()'s answer: an unknown key, as problem+json with the API's headers. Unknown keys spend
    // no admission (lib/server/direct-routes.ts), so they cannot crowd real phones out.
    for (let i = 0; i < 3; i++) {
      const unknown = await claim('dk_unknownunknownunknownunknownunknown00');
      expect(unknown.status).toBe(401);
      expect(unknown.headers.get('content-type')).toContain('application/problem+json');
      expect(unknown.headers.get('x-request-id')).toBeTruthy();
      expect(unknown.headers.get('x-content-type-options')).toBe('nosniff');
    }
    const { deviceKey } = await activateDevice(new DeviceClient({ baseUrl: server.baseUrl }), {
      phone: '+14155557302',
      email: `direct-lane-${process.pid}@example.test`,
    });
    // One a second: a phone's next connection at once is told to come back later, before any work.
    const answers: number[] = [];
    for (let i = 0; i < 3 && !answers.includes(429); i++) answers.push((await claim(deviceKey)).status);
    expect(answers).toContain(200);
    expect(answers.at(-1)).toBe(429);
    const stream = await fetch(`${server.baseUrl}/api/mobile/v1/events`, {
      headers: { authorization: `Bearer ${deviceKey}` },
    });
    expect(stream.status).toBe(429);
    expect(Number(stream.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await stream.json()).message).toMatch(/Too many phones/);
    // Other routes go through Next as before, unpaced.
    for (let i = 0; i < 3; i++) expect((await fetch(`${server.baseUrl}/api/health/live`)).status).toBe(200);
  });
});
