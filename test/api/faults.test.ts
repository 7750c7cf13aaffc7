import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GET as health } from '@/app/api/health/route';
import { POST as send } from '@/app/api/v1/messages/route';
import { GET as listPhones } from '@/app/api/v1/phones/route';
import { openPostgres, setDatabase } from '@/db';
import { clearKeyCache } from '@/lib/auth/key-lookup';
import { call } from '../http';

// Nothing listens on port 1: every query fails to connect, as when the database is down.
const unreachable = openPostgres('postgres://postgres@127.0.0.1:1/none', { max: 1 });

beforeAll(() => {
  setDatabase(unreachable);
  clearKeyCache();
});
afterAll(async () => {
  setDatabase(undefined);
  await unreachable.close();
});

describe('with the database down', () => {
  const key = `sk_${'B'.repeat(40)}`;
  for (const [name, run] of [
    ['the health check', () => call(health)],
    ['an authenticated list', () => call(listPhones, { apiKey: key })],
    ['a send', () => call(send, { apiKey: key, body: { from: '+14155550100', to: '+14155550123', content: 'x' } })],
  ] as const) {
    it(`${name} answers 503 SERVICE_UNAVAILABLE with Retry-After, not 500`, async () => {
      const res = await run();
      expect(res.status).toBe(503);
      expect(res.contentType).toBe('application/problem+json');
      expect(res.headers.get('retry-after')).toBe('5');
      expect(res.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
      expect(res.text).not.toContain('127.0.0.1');
    });
  }
});
