import { beforeAll, describe, expect, it } from 'vitest';
import { POST as login } from '@/app/api/v1/auth/login/route';
import { POST as register } from '@/app/api/v1/auth/register/route';
import { DomainError } from '@/lib/errors';
import { route } from '@/lib/http/route';
import { z } from '@/lib/zod';
import { describeAuthCases } from '../auth-cases';
import { createRevokedKey, createTestAccount, type TestAccount } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

let account: TestAccount;
let revokedKey: string;
beforeAll(async () => {
  account = await createTestAccount(db());
  revokedKey = await createRevokedKey(db(), account.accountId);
});

const echo = route(
  {
    auth: 'account',
    body: z.object({ name: z.string().min(1), count: z.number().int().max(10) }),
    query: z.object({ verbose: z.enum(['yes', 'no']).optional() }),
    status: 201,
  },
  async ({ body, query, principal }) => ({ ...body, verbose: query.verbose ?? null, account: principal.accountId }),
);
const deviceOnly = route({ auth: 'device' }, async ({ principal }) => ({ device: principal.deviceId }));
const explodes = route({ auth: 'none' }, async () => {
  throw new Error('secret internal detail: password=hunter2');
});
const domainFailure = route({ auth: 'none' }, async () => {
  throw new DomainError('DUPLICATE_REQUEST', 'Already sent.', {
    extra: { message_id: 'm1' },
    headers: { 'Retry-After': '7' },
  });
});
const badUuid = route({ auth: 'none' }, async ({ db }) => {
  await db.execute(`select 'not-a-uuid'::uuid` as never);
});

const goodRequest = () => ({ body: { name: 'x', count: 1 } });

describe('the route wrapper', () => {
  it('runs the handler with the parsed body, query and principal, and answers its status', async () => {
    const res = await call(echo, { ...goodRequest(), path: '/x?verbose=yes', apiKey: account.apiKey });
    expect(res.status).toBe(201);
    expect(res.contentType).toBe('application/json');
    expect(res.body).toEqual({ name: 'x', count: 1, verbose: 'yes', account: account.accountId });
  });

  it('answers 400 VALIDATION_ERROR naming every bad field', async () => {
    const res = await call(echo, { body: { name: '', count: 99 }, apiKey: account.apiKey });
    expect(res.status).toBe(400);
    expect(res.contentType).toBe('application/problem+json');
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['count', 'name']);
  });

  it('validates the query string too', async () => {
    const res = await call(echo, { ...goodRequest(), path: '/x?verbose=maybe', apiKey: account.apiKey });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].path).toBe('verbose');
  });

  it('answers 400 VALIDATION_ERROR for malformed JSON', async () => {
    const res = await call(echo, {
      rawBody: '{"name": "x",',
      headers: { 'content-type': 'application/json' },
      apiKey: account.apiKey,
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: 'body' }] });
  });

  it('answers 400 for a missing body where one is required', async () => {
    const res = await call(echo, { method: 'POST', apiKey: account.apiKey });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });

  it('answers 415 UNSUPPORTED_MEDIA_TYPE for a body that is not JSON', async () => {
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', '']) {
      const headers: Record<string, string> = contentType ? { 'content-type': contentType } : {};
      const res = await call(echo, { rawBody: 'name=x', headers, apiKey: account.apiKey });
      expect(res.status).toBe(415);
      expect(res.body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    }
  });

  it('accepts application/json with a charset', async () => {
    const res = await call(echo, {
      rawBody: JSON.stringify(goodRequest().body),
      headers: { 'content-type': 'application/json; charset=utf-8' },
      apiKey: account.apiKey,
    });
    expect(res.status).toBe(201);
  });

  it('answers 413 PAYLOAD_TOO_LARGE for a body over 1 MiB, declared or streamed', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10), count: 1 });
    const declared = await call(echo, {
      rawBody: big,
      headers: { 'content-type': 'application/json' },
      apiKey: account.apiKey,
    });
    expect(declared.status).toBe(413);
    expect(declared.body.code).toBe('PAYLOAD_TOO_LARGE');

    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > 1024 * 1024 * 2) return controller.close();
        sent += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const streamed = await call(echo, {
      rawBody: stream,
      headers: { 'content-type': 'application/json' },
      apiKey: account.apiKey,
    });
    expect(streamed.status).toBe(413);
    expect(sent).toBeLessThan(1024 * 1024 * 2);
  });

  it('answers 400, not 503, when the client aborts in the middle of its body', async () => {
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"name": "x'));
        controller.error(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
      },
    });
    const res = await call(echo, {
      rawBody: stream,
      headers: { 'content-type': 'application/json' },
      apiKey: account.apiKey,
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path: 'body', message: 'incomplete body' }]);
  });

  it('answers 500 with a request id and nothing internal for an unknown error', async () => {
    const res = await call(explodes, { method: 'POST' });
    expect(res.status).toBe(500);
    expect(res.contentType).toBe('application/problem+json');
    expect(res.body.code).toBe('INTERNAL_ERROR');
    expect(res.body.request_id).toBe(res.headers.get('x-request-id'));
    expect(res.text).not.toContain('hunter2');
    expect(res.text).not.toContain('secret internal');
  });

  it('maps a domain error with its extra members and headers', async () => {
    const res = await call(domainFailure, { method: 'POST' });
    expect(res.status).toBe(409);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(res.body).toMatchObject({ code: 'DUPLICATE_REQUEST', message_id: 'm1', title: 'Duplicate request' });
  });

  it('turns a database error caused by bad input into 400, not 500', async () => {
    const res = await call(badUuid, { method: 'POST' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });

  it('answers 503 with Retry-After when the database aborts a transaction to break a deadlock', async () => {
    const deadlocked = route({ auth: 'none' }, async () => {
      throw Object.assign(new Error('Failed query'), {
        cause: Object.assign(new Error('deadlock detected'), { code: '40P01' }),
      });
    });
    const res = await call(deadlocked, { method: 'POST' });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(res.body.code).toBe('SERVICE_UNAVAILABLE');
  });

  it('answers 503, not 500, to a statement prepared before a migration changed its result', async () => {
    const stale = route({ auth: 'none' }, async () => {
      throw Object.assign(new Error('Failed query'), {
        cause: Object.assign(new Error('cached plan must not change result type'), { code: '0A000' }),
      });
    });
    const res = await call(stale, { method: 'POST' });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    // Any other 0A000 (a feature PostgreSQL does not support) is a bug of ours: 500.
    const unsupported = route({ auth: 'none' }, async () => {
      throw Object.assign(new Error('FOR UPDATE is not allowed with aggregate functions'), { code: '0A000' });
    });
    expect((await call(unsupported, { method: 'POST' })).status).toBe(500);
  });

  it('echoes a sane x-request-id and replaces an unsafe one', async () => {
    const echoed = await call(explodes, { method: 'POST', headers: { 'x-request-id': 'abc-123' } });
    expect(echoed.headers.get('x-request-id')).toBe('abc-123');
    const replaced = await call(explodes, { method: 'POST', headers: { 'x-request-id': 'a b<script>' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('puts x-request-id on successful answers too', async () => {
    const res = await call(echo, { ...goodRequest(), apiKey: account.apiKey });
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('authenticates before it validates', async () => {
    const res = await call(echo, { rawBody: '{bad', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(401);
  });

  it('accepts a device key where a device key is required', async () => {
    const res = await call(deviceOnly, { apiKey: account.deviceKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ device: account.deviceId });
  });
});

describeAuthCases('an account route', {
  handler: echo,
  request: goodRequest,
  accepts: 'account',
  fixture: () => ({ account, revokedKey }),
});
describeAuthCases('a device route', {
  handler: deviceOnly,
  request: { method: 'POST' },
  accepts: 'device',
  fixture: () => ({ account, revokedKey }),
});

describe('retired password endpoints', () => {
  for (const [name, handler] of [
    ['register', register],
    ['login', login],
  ] as const) {
    it(`POST /api/v1/auth/${name} answers 410 AUTH_METHOD_RETIRED, whatever the body`, async () => {
      for (const options of [{ body: { email: 'a@b.c', password: 'x' } }, { method: 'POST' }, { rawBody: 'junk' }]) {
        const res = await call(handler, options);
        expect(res.status).toBe(410);
        expect(res.contentType).toBe('application/problem+json');
        expect(res.body.code).toBe('AUTH_METHOD_RETIRED');
      }
    });
  }
});
