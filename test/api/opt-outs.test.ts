import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { POST as send } from '@/app/api/v1/messages/route';
import { DELETE as removeOptOut } from '@/app/api/v1/opt-outs/[phone]/route';
import { POST as addOptOut, GET as listOptOuts } from '@/app/api/v1/opt-outs/route';
import { GET as readSettings, PATCH as updateSettings } from '@/app/api/v1/opt-outs/settings/route';
import { events } from '@/db/schema';
import { describeAuthCases } from '../auth-cases';
import { createTestAccount, sharedTestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();
const { fixture } = sharedTestAccount(db);

describeAuthCases('GET /api/v1/opt-outs', { handler: listOptOuts, request: {}, accepts: 'account', fixture });
describeAuthCases('POST /api/v1/opt-outs', {
  handler: addOptOut,
  request: () => ({ body: { phone: testNumber() } }),
  accepts: 'account',
  fixture,
});
describeAuthCases('DELETE /api/v1/opt-outs/{phone}', {
  handler: removeOptOut,
  request: () => ({ params: { phone: testNumber() }, method: 'DELETE' }),
  accepts: 'account',
  fixture,
});
describeAuthCases('PATCH /api/v1/opt-outs/settings', {
  handler: updateSettings,
  request: { body: { confirmation_reply: null }, method: 'PATCH' },
  accepts: 'account',
  fixture,
});

describe('/api/v1/opt-outs', () => {
  it('adds by hand (201, then 200 with the same one), lists newest first, removes (204, then 404)', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const [first, second] = [testNumber(), testNumber()];
    const added = await call(addOptOut, { body: { phone: first }, apiKey: account.apiKey });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({ phone: first, source: 'manual', created_at: expect.stringMatching(/Z$/) });
    expect((await call(addOptOut, { body: { phone: first }, apiKey: account.apiKey })).status).toBe(200);
    await call(addOptOut, { body: { phone: second }, apiKey: account.apiKey });
    const listed = await call(listOptOuts, { apiKey: account.apiKey });
    expect(listed.body.data.map((row: { phone: string }) => row.phone)).toEqual([second, first]);
    expect(
      (await call(send, { body: { from: account.phone, to: first, content: 'x' }, apiKey: account.apiKey })).status,
    ).toBe(422);
    // `+` unencoded in a path arrives as a space.
    const removed = await call(removeOptOut, {
      params: { phone: first.replace('+', ' ') },
      method: 'DELETE',
      apiKey: account.apiKey,
    });
    expect(removed.status).toBe(204);
    expect(
      (await call(removeOptOut, { params: { phone: first }, method: 'DELETE', apiKey: account.apiKey })).status,
    ).toBe(404);
    expect(
      (await call(send, { body: { from: account.phone, to: first, content: 'x' }, apiKey: account.apiKey })).status,
    ).toBe(201);
  });

  it('emits recipient.opted_out and recipient.opted_in for changes made by hand', async () => {
    const account = await createTestAccount(db());
    const number = testNumber();
    await call(addOptOut, { body: { phone: number }, apiKey: account.apiKey });
    await call(removeOptOut, { params: { phone: number }, method: 'DELETE', apiKey: account.apiKey });
    const rows = await db()
      .select({ type: events.type, payload: events.payload })
      .from(events)
      .where(eq(events.accountId, account.accountId))
      .orderBy(events.createdAt);
    expect(rows.map((row) => row.type)).toEqual(['recipient.opted_out', 'recipient.opted_in']);
    expect(rows[0]?.payload).toMatchObject({ phone: number, source: 'manual', account_phone: null });
  });

  it('refuses a number that is not E.164, naming the field', async () => {
    const account = await createTestAccount(db());
    const res = await call(addOptOut, { body: { phone: '12345' }, apiKey: account.apiKey });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ path: 'phone' })]);
    const bad = await call(removeOptOut, { params: { phone: 'nope' }, method: 'DELETE', apiKey: account.apiKey });
    expect(bad.status).toBe(400);
  });

  it('the confirmation reply is off by default, settable and clearable', async () => {
    const account = await createTestAccount(db());
    const initial = await call(readSettings, { apiKey: account.apiKey });
    expect(initial.body).toMatchObject({
      confirmation_reply: null,
      stop_words: expect.arrayContaining(['STOP', 'QUIT']),
    });
    const set = await call(updateSettings, {
      method: 'PATCH',
      body: { confirmation_reply: ' Bye. ' },
      apiKey: account.apiKey,
    });
    expect(set.body.confirmation_reply).toBe('Bye.');
    const cleared = await call(updateSettings, {
      method: 'PATCH',
      body: { confirmation_reply: null },
      apiKey: account.apiKey,
    });
    expect(cleared.body.confirmation_reply).toBeNull();
    const empty = await call(updateSettings, {
      method: 'PATCH',
      body: { confirmation_reply: '' },
      apiKey: account.apiKey,
    });
    expect(empty.status).toBe(400);
  });
});
