import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { errorResponse, route, routePattern } from '@/lib/http/route';
import { z } from '@/lib/zod';
import { call } from '../http';
import { captureLogs } from '../logs';
import { withTestDatabase } from '../setup-db';

withTestDatabase();
const logs = captureLogs();

const WARN = 40;
const warnings = () => logs.entries().filter((entry) => entry.level === WARN);

// Passes its schema, then overflows the integer column type in SQL: the client's fault, not ours.
const overflows = route(
  { auth: 'none', params: z.object({ id: z.string().regex(/^\d+$/) }) },
  async ({ db, params }) => {
    await db.execute(sql`select ${params.id}::integer`);
  },
);

/** A driver error as drizzle throws it: its own error, the driver's in `cause`. */
function driverError(code: string): Error {
  return Object.assign(new Error('Failed query: select $1 params: 99999999999'), {
    cause: Object.assign(new Error('value "99999999999" is out of range'), { code }),
  });
}

describe('a database error that the request caused', () => {
  it('answers 400 VALIDATION_ERROR and logs one warning naming the route, never the value', async () => {
    const res = await call(overflows, {
      method: 'POST',
      path: '/api/v1/things/99999999999',
      params: { id: '99999999999' },
    });
    expect(res.status).toBe(400);
    expect(res.contentType).toBe('application/problem+json');
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(warnings()).toEqual([
      expect.objectContaining({
        msg: 'database refused a value of the request',
        requestId: res.headers.get('x-request-id'),
        sqlstate: '22003',
        method: 'POST',
        route: '/api/v1/things/[id]',
      }),
    ]);
    expect(
      logs
        .lines()
        .filter((line) => line.includes('"level":40'))
        .join(''),
    ).not.toContain('99999999999');
    expect(logs.entries().some((entry) => Number(entry.level) >= 50)).toBe(false);
  });

  it.each(['22P02', '22003', '22008', '22012', '22P05', '54000'])(
    'maps SQLSTATE %s to 400 with one warning, not a 500',
    (sqlstate) => {
      const res = errorResponse(driverError(sqlstate), 'req-1', undefined, '/api/v1/messages');
      expect(res.status).toBe(400);
      expect(warnings()).toEqual([
        expect.objectContaining({ requestId: 'req-1', sqlstate, route: '/api/v1/messages' }),
      ]);
      expect(logs.lines().join('')).not.toContain('99999999999');
    },
  );

  it('leaves other database errors to the 500 path', () => {
    const res = errorResponse(driverError('23502'), 'req-2', undefined, '/api/v1/messages');
    expect(res.status).toBe(500);
    expect(warnings()).toEqual([]);
  });
});

describe('a database that is away or gave up waiting', () => {
  for (const code of [
    '57014',
    'DATABASE_BUSY',
    'DATABASE_ACQUIRE_TIMEOUT',
    'DATABASE_NO_ANSWER',
    'UNSAFE_TRANSACTION',
  ]) {
    it(`answers ${code} with 503 SERVICE_UNAVAILABLE, Retry-After and the request id`, async () => {
      const res = errorResponse(driverError(code), 'req-3', undefined, '/api/v1/messages');
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(await res.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE', request_id: 'req-3' });
    });
  }
});

describe('the route pattern a log line names', () => {
  it('replaces each parameter value by its name, in the order of the segments', () => {
    expect(routePattern('/api/v1/webhooks/a1/deliveries/b2/resend', { id: 'a1', delivery_id: 'b2' })).toBe(
      '/api/v1/webhooks/[id]/deliveries/[delivery_id]/resend',
    );
    expect(routePattern('/api/v1/phones/x%20y', { id: 'x y' })).toBe('/api/v1/phones/[id]');
    expect(routePattern('/api/v1/messages', {})).toBe('/api/v1/messages');
  });
});
