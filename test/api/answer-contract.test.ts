import { describe, expect, it } from 'vitest';
import { route } from '@/lib/http/route';
import { z } from '@/lib/zod';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

withTestDatabase();

const doc = {
  operationId: 'answerContractProbe',
  summary: 'A probe',
  tags: [] as never[],
  response: { description: 'A thing.', schema: z.object({ id: z.string(), count: z.number().int() }) },
  otherResponses: [{ status: 202, description: 'Later.', schema: z.object({ pending: z.literal(true) }) }],
};

const keepsItsWord = route({ auth: 'none', doc }, async () => ({ id: 'a', count: 1, extra: 'allowed' }));
const breaksItsWord = route({ auth: 'none', doc }, async () => ({ id: 'a', count: 'one' }));
const breaksAnotherStatus = route({ auth: 'none', doc }, async () =>
  Response.json({ pending: false }, { status: 202 }),
);

describe('every success answer is checked against its documented schema under npm test', () => {
  it('an answer of the documented shape passes as it is', async () => {
    const res = await call(keepsItsWord, { path: '/api/v1/probe' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: 'a', count: 1 });
  });

  it('an answer outside its schema becomes a 500 naming the operation and the field', async () => {
    const res = await call(breaksItsWord, { path: '/api/v1/probe' });
    expect(res.status).toBe(500);
    expect(res.body.detail).toContain('answerContractProbe answered 200 outside its documented schema');
    expect(res.body.detail).toContain('count');
  });

  it('another documented status is checked against its own schema', async () => {
    const res = await call(breaksAnotherStatus, { path: '/api/v1/probe' });
    expect(res.status).toBe(500);
    expect(res.body.detail).toContain('pending');
  });
});
