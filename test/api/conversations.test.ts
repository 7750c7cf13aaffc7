import { describe, expect, it } from 'vitest';
import { GET as thread } from '@/app/api/v1/conversations/[number]/route';
import { GET as conversations } from '@/app/api/v1/conversations/route';
import { POST as received } from '@/app/api/v1/device/messages/received/route';
import { POST as send } from '@/app/api/v1/messages/route';
import { createTestAccount, type TestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

async function sendTo(account: TestAccount, to: string, content: string): Promise<string> {
  const res = await call(send, { body: { from: account.phone, to, content }, apiKey: account.apiKey });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function receiveFrom(account: TestAccount, from: string, content: string): Promise<string> {
  const res = await call(received, {
    body: { from, content, device_message_id: crypto.randomUUID() },
    apiKey: account.deviceKey,
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

describe('conversations', () => {
  it('groups both directions by the other party, the most recently active first', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const ada = testNumber();
    const bob = testNumber();
    await sendTo(account, ada, 'Hello Ada');
    await sendTo(account, bob, 'Hello Bob');
    const reply = await receiveFrom(account, ada, 'Hi back');

    const res = await call(conversations, { apiKey: account.apiKey });
    expect(res.status).toBe(200);
    expect(res.body.data.map((c: { number: string }) => c.number)).toEqual([ada, bob]);
    expect(res.body.data[0]).toMatchObject({ number: ada, message_count: 2, last_message: { id: reply } });
    expect(res.body.data[1]).toMatchObject({ number: bob, message_count: 1 });

    const messages = await call(thread, { apiKey: account.apiKey, params: { number: ada } });
    expect(messages.status).toBe(200);
    expect(messages.body.data.map((m: { content: string }) => m.content)).toEqual(['Hi back', 'Hello Ada']);
  });

  it('pages on with next_cursor, and refuses a cursor it did not give out', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const numbers = [testNumber(), testNumber(), testNumber()];
    for (const number of numbers) await sendTo(account, number, 'Hello');
    const first = await call(conversations, { apiKey: account.apiKey, path: '/x?limit=2' });
    expect(first.body.data).toHaveLength(2);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await call(conversations, {
      apiKey: account.apiKey,
      path: `/x?limit=2&cursor=${first.body.next_cursor}`,
    });
    expect(second.body).toMatchObject({ data: [{ number: numbers[0] }], next_cursor: null });
    const seen = [...first.body.data, ...second.body.data].map((c: { number: string }) => c.number);
    expect(seen.sort()).toEqual([...numbers].sort());

    const bad = await call(conversations, { apiKey: account.apiKey, path: '/x?cursor=nonsense' });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('VALIDATION_ERROR');
  });

  it('answers 400 naming the number when it is not E.164, and an empty page for a stranger', async () => {
    const account = await createTestAccount(db());
    const bad = await call(thread, { apiKey: account.apiKey, params: { number: 'not-a-number' } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([expect.objectContaining({ path: 'number' })]);
    const none = await call(thread, { apiKey: account.apiKey, params: { number: testNumber() } });
    expect(none.body).toEqual({ data: [], next_cursor: null });
  });
});
