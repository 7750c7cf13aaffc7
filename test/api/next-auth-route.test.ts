import NextAuth from 'next-auth';
import { describe, expect, it } from 'vitest';
import { GET, POST } from '@/app/api/auth/[...nextauth]/route';
import { logAuthEvent } from '@/lib/auth/auth-log';
import { authOptions } from '@/lib/auth/next-auth';
import { captureLogs } from '../logs';
import { authRequest } from '../next-auth-request';

// Sessions are encrypted with the app secret: a fixed one, so no secret file is written.
process.env.APP_SECRET ??= 'test-app-secret-0123456789abcdefghijklmnopqrstuvwxyz';

const logs = captureLogs();

const FORGED_ENTRY = new URLSearchParams({ level: 'error', code: 'FORGED_BY_A_CLIENT', message: 'disk full' });

describe('/api/auth/[...nextauth]', () => {
  it('answers 404 to the client logger (POST /api/auth/_log) and logs nothing', async () => {
    const { req, context } = authRequest('/api/auth/_log', { method: 'POST', body: FORGED_ENTRY });
    const res = await POST(req, context);
    expect(res.status).toBe(404);
    expect(logs.lines()).toEqual([]);
  });

  it('still answers the other next-auth routes', async () => {
    const providers = authRequest('/api/auth/providers');
    const res = await GET(providers.req, providers.context);
    expect(res.status).toBe(200);
    expect(Object.keys(await res.json()).sort()).toEqual(['api-key', 'email-code']);

    const csrf = authRequest('/api/auth/csrf');
    const csrfRes = await GET(csrf.req, csrf.context);
    expect(csrfRes.status).toBe(200);
    expect((await csrfRes.json()).csrfToken).toEqual(expect.any(String));
  });
});

describe('logAuthEvent, as next-auth logger', () => {
  /** next-auth with the logger lib/auth/next-auth.ts is to be given. */
  function nextAuthLoggingThrough(path: string, sessionToken?: string) {
    const { req, context } = authRequest(path, { sessionToken });
    return NextAuth(req as never, context as never, {
      ...authOptions(),
      logger: {
        error: (code, metadata) => logAuthEvent('error', code, metadata),
        warn: (code) => logAuthEvent('warn', code),
        debug: () => {},
      },
    }) as Promise<Response>;
  }

  it('logs a refused callbackUrl as one warning, without a stack', async () => {
    const res = await nextAuthLoggingThrough('/api/auth/signin?callbackUrl=javascript:alert(1)');
    expect(res.status).toBe(302);
    const [entry, ...more] = logs.entries();
    expect(more).toEqual([]);
    expect(entry).toMatchObject({ level: 40, code: 'INVALID_CALLBACK_URL_ERROR', msg: 'next-auth refused a request' });
    expect(logs.lines()[0]).not.toMatch(/stack|at assertConfig/);
  });

  it('logs a session cookie that does not decrypt as one warning, without a stack', async () => {
    for (const token of [
      'garbage',
      `eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..${'A'.repeat(16)}.AAAA.${'A'.repeat(22)}`,
    ]) {
      logs.clear();
      const res = await nextAuthLoggingThrough('/api/auth/session', token);
      expect(res.status).toBe(200);
      expect(logs.entries()).toEqual([
        expect.objectContaining({ level: 40, code: 'JWT_SESSION_ERROR', msg: 'next-auth refused a request' }),
      ]);
      expect(logs.lines()[0]).not.toContain('stack');
    }
  });

  it('logs any other next-auth error at error level, with its stack', () => {
    logAuthEvent('error', 'SESSION_ERROR', new Error('the session callback failed'));
    logAuthEvent('error', 'JWT_SESSION_ERROR', new TypeError('a bug of ours'));
    logAuthEvent('warn', 'NEXTAUTH_URL');
    expect(logs.entries()).toEqual([
      expect.objectContaining({
        level: 50,
        code: 'SESSION_ERROR',
        err: expect.objectContaining({ stack: expect.any(String) }),
      }),
      expect.objectContaining({
        level: 50,
        code: 'JWT_SESSION_ERROR',
        err: expect.objectContaining({ type: 'TypeError' }),
      }),
      expect.objectContaining({ level: 40, code: 'NEXTAUTH_URL', msg: 'next-auth warning' }),
    ]);
  });
});
