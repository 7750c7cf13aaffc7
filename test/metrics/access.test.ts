import http from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { GET } from '@/app/metrics/route';
import { bearsToken, metricsAccess } from '@/lib/metrics/access';
import { serveMetrics } from '@/lib/metrics/serve';
import { fromSocket } from '../http';
import { withTestDatabase } from '../setup-db';

const TOKEN = 'metrics-token-0123456789abcdef0123456789';

withTestDatabase();

function scrape(headers: Record<string, string>, host = 'localhost:3000'): Promise<Response> {
  return GET(new Request(`http://${host}/metrics`, { headers: { host, ...headers } }));
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('who may read /metrics', () => {
  it('compares the Bearer token in constant time, and only as a Bearer token', () => {
    expect(bearsToken(`Bearer ${TOKEN}`, TOKEN)).toBe(true);
    expect(bearsToken(`bearer ${TOKEN}`, TOKEN)).toBe(true);
    expect(bearsToken(`Bearer ${TOKEN}x`, TOKEN)).toBe(false);
    expect(bearsToken(`Bearer ${TOKEN.slice(1)}`, TOKEN)).toBe(false);
    expect(bearsToken(`Basic ${TOKEN}`, TOKEN)).toBe(false);
    expect(bearsToken(TOKEN, TOKEN)).toBe(false);
    expect(bearsToken(null, TOKEN)).toBe(false);
    expect(bearsToken(`Bearer ${TOKEN}`, undefined)).toBe(false);
  });

  it('lets in the token from anywhere, loopback with one of the app’s names; else 401 with a token set, 404 without', () => {
    const remote = { authorization: null, loopback: false, host: 'sms.example.com' };
    expect(metricsAccess({ ...remote, authorization: `Bearer ${TOKEN}` }, TOKEN)).toBe('allowed');
    expect(metricsAccess({ ...remote, authorization: 'Bearer wrong' }, TOKEN)).toBe('unauthorized');
    expect(metricsAccess(remote, TOKEN)).toBe('unauthorized');
    expect(metricsAccess(remote, undefined)).toBe('not_found');
    expect(metricsAccess({ authorization: null, loopback: true, host: '127.0.0.1:3000' }, undefined)).toBe('allowed');
    expect(metricsAccess({ authorization: null, loopback: true, host: 'localhost:9464' }, TOKEN)).toBe('allowed');
    // A page of another site whose name was rebound to 127.0.0.1.
    expect(metricsAccess({ authorization: null, loopback: true, host: 'attacker.example' }, undefined)).toBe(
      'not_found',
    );
  });

  it('answers a loopback socket under npm start, 404 to another machine without a token', async () => {
    const local = await scrape(fromSocket('127.0.0.1'));
    expect(local.status).toBe(200);
    expect(local.headers.get('content-type')).toContain('text/plain');
    expect(local.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await local.text()).toContain('simgate_build_info');
    expect((await scrape(fromSocket('::ffff:127.0.0.1'))).status).toBe(200);
    const remote = await scrape(fromSocket('203.0.113.7'));
    expect(remote.status).toBe(404);
    expect(await remote.text()).not.toContain('simgate_');
    // No socket vouched for (next dev, a bare next start): nothing says the client is local.
    expect((await scrape({})).status).toBe(404);
  });

  it('a loopback socket is a proxy’s when the proxy names a client elsewhere', async () => {
    const local = fromSocket('127.0.0.1');
    expect((await scrape({ ...local, 'x-forwarded-for': '203.0.113.7' })).status).toBe(404);
    expect((await scrape({ ...local, 'x-forwarded-for': '127.0.0.1, 203.0.113.7' })).status).toBe(404);
    expect((await scrape({ ...local, 'x-real-ip': '203.0.113.7' })).status).toBe(404);
    expect((await scrape({ ...local, forwarded: 'for="[2001:db8::1]";proto=https' })).status).toBe(404);
    // Forwarded and X-Real-IP come only from a proxy, whatever they name.
    expect((await scrape({ ...local, forwarded: 'for=127.0.0.1' })).status).toBe(404);
    expect((await scrape({ ...local, 'x-real-ip': '127.0.0.1' })).status).toBe(404);
    // What Next itself sets when the header is missing: the socket's own address.
    expect((await scrape({ ...local, 'x-forwarded-for': '127.0.0.1' })).status).toBe(200);
  });

  it('with METRICS_TOKEN: the token from another machine, by any Host; 401 without it or with another', async () => {
    vi.stubEnv('METRICS_TOKEN', TOKEN);
    const remote = fromSocket('203.0.113.7');
    const allowed = await scrape({ ...remote, authorization: `Bearer ${TOKEN}` }, '10.0.0.5:3000');
    expect(allowed.status).toBe(200);
    const wrong = await scrape({ ...remote, authorization: 'Bearer not-the-token' });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
    expect(await wrong.json()).toMatchObject({ status: 401, code: 'UNAUTHENTICATED' });
    expect((await scrape(remote)).status).toBe(401);
    expect((await scrape(fromSocket('127.0.0.1'))).status).toBe(200);
  });
});

describe('the worker’s METRICS_PORT listener', () => {
  let listener: Awaited<ReturnType<typeof serveMetrics>>;
  beforeAll(async () => {
    listener = await serveMetrics(0, '127.0.0.1');
  });
  afterAll(async () => {
    await listener.close();
  });

  function get(path: string, headers: Record<string, string> = {}) {
    return new Promise<{ status: number; body: string }>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port: listener.port, path, headers }, (res) => {
          let body = '';
          res.on('data', (chunk) => {
            body += chunk;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        })
        .on('error', reject);
    });
  }

  it('serves /metrics to a loopback client, and nothing else', async () => {
    const scraped = await get('/metrics');
    expect(scraped.status).toBe(200);
    expect(scraped.body).toContain('simgate_background_task_runs_total');
    expect(scraped.body).toContain('process_cpu_seconds_total');
    expect((await get('/')).status).toBe(404);
    expect((await get('/api/v1/messages')).status).toBe(404);
  });

  it('refuses a client behind a proxy without the token, and takes the token', async () => {
    expect((await get('/metrics', { 'x-forwarded-for': '203.0.113.7' })).status).toBe(404);
    // A proxy on this machine naming a loopback client is still a proxy.
    const proxied: Record<string, string>[] = [
      { 'x-forwarded-for': '127.0.0.1' },
      { 'x-real-ip': '127.0.0.1' },
      { forwarded: 'for=::1' },
    ];
    for (const headers of proxied) {
      expect((await get('/metrics', headers)).status, JSON.stringify(headers)).toBe(404);
    }
    vi.stubEnv('METRICS_TOKEN', TOKEN);
    expect((await get('/metrics', { 'x-forwarded-for': '203.0.113.7' })).status).toBe(401);
    const withToken = await get('/metrics', { 'x-forwarded-for': '203.0.113.7', authorization: `Bearer ${TOKEN}` });
    expect(withToken.status).toBe(200);
  });
});
