import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    const claim = () =>
      fetch(`${server.baseUrl}/api/v1/device/outbox/claim`, {
        method: 'POST',
        headers: { 'x-api-key': 'dk_unknownunknownunknownunknownunknown00', 'content-type': 'application/json' },
        body: '{"limit":1}',
      });
    const first = await claim();
    // route()'s answer: an unknown key, as problem+json with the API's headers.
    expect(first.status).toBe(401);
    expect(first.headers.get('content-type')).toContain('application/problem+json');
    expect(first.headers.get('x-request-id')).toBeTruthy();
    expect(first.headers.get('x-content-type-options')).toBe('nosniff');
    // One a second: the next at once is told to come back later, before any work.
    const second = await claim();
    expect(second.status).toBe(429);
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const stream = await fetch(`${server.baseUrl}/api/mobile/v1/events`, {
      headers: { authorization: 'Bearer dk_unknownunknownunknownunknownunknown00' },
    });
    expect(stream.status).toBe(429);
    expect((await stream.json()).message).toMatch(/Too many phones/);
    // Other routes go through Next as before, unpaced.
    for (let i = 0; i < 3; i++) expect((await fetch(`${server.baseUrl}/api/health/live`)).status).toBe(200);
  });
});
