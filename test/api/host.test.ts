import type http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { NextRequest } from 'next/server';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GET as metrics } from '@/app/metrics/route';
import { isAllowedHost, PEER_HEADER, PEER_TOKEN_ENV } from '@/lib/net/host-policy';
import { proxy } from '@/proxy';

const saved = { ...process.env };
afterEach(() => {
  for (const name of ['APP_URL', 'NEXTAUTH_URL', 'ALLOWED_HOSTS', 'DATABASE_URL', PEER_TOKEN_ENV]) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

function through(host: string, pathname = '/api/auth/session', headers: Record<string, string> = {}) {
  return proxy(new NextRequest(`http://${host}${pathname}`, { headers: { host, ...headers } }));
}

describe('the Host check in the proxy (DNS rebinding; /api/v1 does it in route(): front-door.test.ts)', () => {
  it('refuses a rebound name with 421 problem+json before any route runs', async () => {
    for (const host of ['attacker.example:3000', 'attacker.example', '127.0.0.1.nip.io:3000', '[::2]:3000']) {
      const res = through(host);
      expect(res.status, host).toBe(421);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(await res.json()).toMatchObject({ status: 421, code: 'MISDIRECTED_REQUEST' });
    }
  });

  it('in local mode answers localhost, 127.0.0.1 and [::1] on any port', () => {
    for (const host of ['localhost:3000', '127.0.0.1:3107', '[::1]:3000', 'LOCALHOST']) {
      expect(through(host).status, host).toBe(200);
    }
  });

  it('answers the APP_URL host and ALLOWED_HOSTS, and in server mode only those', () => {
    process.env.APP_URL = 'https://sms.example.com';
    process.env.ALLOWED_HOSTS = 'gateway.internal, 10.0.0.5';
    expect(through('sms.example.com').status).toBe(200);
    expect(through('SMS.example.com:443').status).toBe(200);
    expect(through('gateway.internal:3000').status).toBe(200);
    expect(through('10.0.0.5:3000').status).toBe(200);
    process.env.DATABASE_URL = 'postgres://db.invalid/simgate';
    expect(through('localhost:3000').status).toBe(421);
    expect(through('sms.example.com').status).toBe(200);
  });

  it('lets load balancers probe /api/health by address', () => {
    process.env.DATABASE_URL = 'postgres://db.invalid/simgate';
    expect(through('10.1.2.3:3000', '/api/health').status).toBe(200);
  });

  it('refuses a request without a Host', () => {
    expect(isAllowedHost(null, { localMode: true })).toBe(false);
  });
});

describe('the dev inbox (page and API) answers clients on this machine only', () => {
  const inbox = async (headers: Record<string, string>, pathname = '/api/dev/inbox') => {
    const res = through(headers.host ?? 'localhost:3000', pathname, headers);
    return { status: res.status, body: res.status === 200 ? null : await res.json() };
  };

  it('decides by the socket address that npm start’s server passes on', async () => {
    process.env[PEER_TOKEN_ENV] = 'secret-token';
    expect((await inbox({ host: 'localhost:3000', [PEER_HEADER]: 'secret-token 127.0.0.1' })).status).toBe(200);
    expect((await inbox({ host: 'localhost:3000', [PEER_HEADER]: 'secret-token ::ffff:127.0.0.1' })).status).toBe(200);
    expect((await inbox({ host: 'localhost:3000', [PEER_HEADER]: 'secret-token ::1' })).status).toBe(200);
    // A LAN client naming localhost in its Host header is still a LAN client.
    for (const pathname of ['/api/dev/inbox', '/dev/inbox', '/dev/inbox/']) {
      const lan = await inbox({ host: 'localhost:3000', [PEER_HEADER]: 'secret-token 192.168.1.20' }, pathname);
      expect(lan.status, pathname).toBe(404);
      expect(lan.body.code).toBe('NOT_FOUND');
    }
    // Everything else is served to the LAN client as usual.
    expect(through('localhost:3000', '/sign-in', { [PEER_HEADER]: 'secret-token 192.168.1.20' }).status).toBe(200);
  });

  it('does not believe a peer header without the process’s token', async () => {
    process.env[PEER_TOKEN_ENV] = 'secret-token';
    process.env.APP_URL = 'https://sms.example.com';
    expect((await inbox({ host: 'sms.example.com', [PEER_HEADER]: 'guessed 127.0.0.1' })).status).toBe(404);
  });

  it('without npm start’s server, answers only a loopback Host', async () => {
    process.env.ALLOWED_HOSTS = '192.168.1.10';
    expect((await inbox({ host: '127.0.0.1:3000' })).status).toBe(200);
    expect((await inbox({ host: '192.168.1.10:3000' })).status).toBe(404);
  });
});

describe('a reverse proxy on this machine makes no client local (dev inbox, tokenless /metrics)', () => {
  type VouchFor = (token: string, req: Pick<http.IncomingMessage, 'socket' | 'headers'>, mark?: string) => string;
  let vouchFor: VouchFor;
  beforeAll(async () => {
    const file = pathToFileURL(path.resolve(import.meta.dirname, '..', '..', 'scripts', 'serve.mjs')).href;
    ({ vouchFor } = (await import(file)) as { vouchFor: VouchFor });
  });

  /**
   * A request from 127.0.0.1 as npm start's server (scripts/serve.mjs) passes it to the app: its
   * peer header, made from the headers as they reached the socket, and the headers as Next hands
   * them on (it adds X-Forwarded-For, the socket's address, when the request has none).
   */
  function fromLoopback(sent: Record<string, string>): Record<string, string> {
    const req = { socket: { remoteAddress: '127.0.0.1' }, headers: sent } as unknown as http.IncomingMessage;
    return { 'x-forwarded-for': '127.0.0.1', ...sent, [PEER_HEADER]: vouchFor('secret-token', req) };
  }
  const inbox = (headers: Record<string, string>) => through('localhost:3000', '/api/dev/inbox', headers).status;
  const scrape = async (headers: Record<string, string>) =>
    (await metrics(new Request('http://localhost:3000/metrics', { headers: { host: 'localhost:3000', ...headers } })))
      .status;

  it('refuses a loopback socket that carries Forwarded, X-Forwarded-For or X-Real-IP, each alone', async () => {
    process.env[PEER_TOKEN_ENV] = 'secret-token';
    const proxied: Record<string, string>[] = [
      { 'x-forwarded-for': '203.0.113.7' },
      // A proxy naming a loopback client is still a proxy: the socket cannot say who is behind it.
      { 'x-forwarded-for': '127.0.0.1' },
      { 'x-real-ip': '203.0.113.7' },
      { 'x-real-ip': '127.0.0.1' },
      { forwarded: 'for=203.0.113.7;proto=https' },
      { forwarded: 'for=127.0.0.1' },
    ];
    for (const sent of proxied) {
      const headers = fromLoopback(sent);
      expect(inbox(headers), JSON.stringify(sent)).toBe(404);
      expect(await scrape(headers), JSON.stringify(sent)).toBe(404);
    }
  });

  it('still answers a loopback client that came through no proxy', async () => {
    process.env[PEER_TOKEN_ENV] = 'secret-token';
    expect(inbox(fromLoopback({}))).toBe(200);
    expect(await scrape(fromLoopback({}))).toBe(200);
  });

  it('without npm start’s server, refuses a loopback Host when a proxy shows', () => {
    const proxied: Record<string, string>[] = [
      { 'x-forwarded-for': '203.0.113.7' },
      { 'x-real-ip': '127.0.0.1' },
      { forwarded: 'for=::1' },
    ];
    for (const sent of proxied) {
      expect(inbox({ host: '127.0.0.1:3000', ...sent }), JSON.stringify(sent)).toBe(404);
    }
    // What Next adds itself when the header is missing: the socket's address.
    expect(inbox({ host: '127.0.0.1:3000', 'x-forwarded-for': '127.0.0.1' })).toBe(200);
  });
});
