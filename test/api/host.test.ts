import { NextRequest } from 'next/server';
import { afterEach, describe, expect, it } from 'vitest';
import { isAllowedHost, PEER_HEADER, PEER_TOKEN_ENV } from '@/lib/http/host-policy';
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
