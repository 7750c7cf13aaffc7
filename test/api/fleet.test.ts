import { and, eq, inArray, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { POST as sendBulk } from '@/app/api/v1/bulk-messages/route';
import { POST as reportStatus } from '@/app/api/v1/device/messages/[id]/status/route';
import { POST as received } from '@/app/api/v1/device/messages/received/route';
import { POST as claim } from '@/app/api/v1/device/outbox/claim/route';
import { POST as heartbeat } from '@/app/api/v1/heartbeats/route';
import { GET as readMessage } from '@/app/api/v1/messages/[id]/route';
import { POST as send } from '@/app/api/v1/messages/route';
import { openPostgres } from '@/db/client';
import { accounts, creditLedger, events, messageStatusHistory, messages, phones } from '@/db/schema';
import { rerouteStranded } from '@/lib/messages/reroute';
import { onRealPostgres } from '../database';
import { addTestPhone, balanceOf, createTestAccount, type TestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

const { db, handle } = withTestDatabase();

function sendAs(who: TestAccount, body: Record<string, unknown>) {
  return call(send, { body: { content: 'Hello', ...body }, apiKey: who.apiKey });
}

async function ledgerOf(messageIds: string[]) {
  return db()
    .select({ kind: creditLedger.kind, messageId: creditLedger.messageId })
    .from(creditLedger)
    .where(inArray(creditLedger.messageId, messageIds));
}

async function goOffline(phoneId: string) {
  await db().update(phones).set({ status: 'offline' }).where(eq(phones.id, phoneId));
}

/** The account's fixture phone is left `unknown` (never online): group sends go to the phones added here. */
async function groupOfTwo(credits = 100) {
  const account = await createTestAccount(db(), { credits });
  const a = await addTestPhone(db(), account, { online: true });
  const b = await addTestPhone(db(), account, { online: true });
  return { account, a, b, group: account.defaultGroupId };
}

describe('SIM slot per message', () => {
  it('is stored, shown, and handed to the phone in its claim', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const res = await sendAs(account, { from: account.phone, to: testNumber(), sim: 2 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ sim: 2, from_group: null });
    const claimed = await call(claim, { body: { limit: 5 }, apiKey: account.deviceKey });
    expect(claimed.body.data).toEqual([expect.objectContaining({ id: res.body.id, sim: 2 })]);
  });

  it('a slot the phone has not reported answers 400 naming sim, charging nothing; accepted before any report', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    expect((await sendAs(account, { from: account.phone, to: testNumber(), sim: 2 })).status).toBe(201);
    const beat = await call(heartbeat, {
      body: { phone: account.phone, status: 'online', sims: 1 },
      apiKey: account.deviceKey,
    });
    expect(beat.status).toBe(200);
    const refused = await sendAs(account, { from: account.phone, to: testNumber(), sim: 2 });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: 'sim' }] });
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(9);
    expect((await sendAs(account, { from: account.phone, to: testNumber(), sim: 1 })).status).toBe(201);
    const bulk = await call(sendBulk, {
      body: { from: account.phone, recipients: [testNumber()], content: 'x', sim: 2 },
      apiKey: account.apiKey,
    });
    expect(bulk.status).toBe(400);
    expect(bulk.body.errors).toEqual([expect.objectContaining({ path: 'sim' })]);
  });

  it('refuses a slot other than 1 or 2', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const res = await sendAs(account, { from: account.phone, to: testNumber(), sim: 3 });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ path: 'sim' })]);
  });
});

describe('send through a group', () => {
  it('needs exactly one of from and from_group', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const both = await sendAs(account, { from: account.phone, from_group: account.defaultGroupId, to: testNumber() });
    const neither = await sendAs(account, { to: testNumber() });
    for (const res of [both, neither]) {
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ path: 'from' }] });
    }
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(10);
  });

  it('another account’s group answers 404 GROUP_NOT_FOUND', async () => {
    const account = await createTestAccount(db());
    const other = await createTestAccount(db());
    const res = await sendAs(account, { from_group: other.defaultGroupId, to: testNumber() });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('GROUP_NOT_FOUND');
  });

  it('20 sends to 10 recipients spread over both phones, each recipient sticking to one phone', async () => {
    const { account, a, b, group } = await groupOfTwo();
    const recipients = Array.from({ length: 10 }, () => testNumber());
    const sentFrom = new Map<string, Set<string>>();
    for (const round of [1, 2]) {
      for (const to of recipients) {
        const res = await sendAs(account, { from_group: group, to, content: `round ${round}` });
        expect(res.status).toBe(201);
        expect(res.body.from_group).toBe(group);
        sentFrom.set(to, new Set([...(sentFrom.get(to) ?? []), res.body.from]));
      }
    }
    for (const to of recipients) expect(sentFrom.get(to)?.size).toBe(1);
    const used = [...sentFrom.values()].map((set) => [...set][0]);
    expect(used.filter((from) => from === a.phone).length).toBe(5);
    expect(used.filter((from) => from === b.phone).length).toBe(5);
    expect(await balanceOf(db(), group)).toBe(80);
  });

  it('with no online phone it waits, or answers 409 NO_ONLINE_PHONE when require_online asks', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const waiting = await sendAs(account, { from_group: account.defaultGroupId, to: testNumber() });
    expect(waiting.status).toBe(201);
    expect(waiting.body).toMatchObject({ from: account.phone, status: 'queued' });
    const refused = await sendAs(account, {
      from_group: account.defaultGroupId,
      to: testNumber(),
      require_online: true,
    });
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'NO_ONLINE_PHONE', group_id: account.defaultGroupId });
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(9);
  });

  it('a phone going offline hands its queued group messages to the other phone, which delivers them, each charged once', async () => {
    const { account, a, b, group } = await groupOfTwo();
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await sendAs(account, { from_group: group, to: testNumber() });
      ids.push(res.body.id);
    }
    const onA = await db()
      .select({ id: messages.id })
      .from(messages)
      .where(and(eq(messages.phoneId, a.phoneId), inArray(messages.id, ids)));
    expect(onA.length).toBeGreaterThan(0);
    await goOffline(a.phoneId);
    expect(await rerouteStranded(db())).toBe(onA.length);
    expect(await rerouteStranded(db())).toBe(0);
    const claimed = await call(claim, { body: { limit: 10 }, apiKey: b.deviceKey });
    expect(claimed.body.data.map((m: { id: string }) => m.id).sort()).toEqual([...ids].sort());
    for (const id of ids) {
      await call(reportStatus, { params: { id }, body: { status: 'sent' }, apiKey: b.deviceKey });
      await call(reportStatus, { params: { id }, body: { status: 'delivered' }, apiKey: b.deviceKey });
    }
    const rows = await db().select().from(messages).where(inArray(messages.id, ids));
    expect(rows.every((row) => row.status === 'delivered' && row.from === b.phone)).toBe(true);
    const ledger = await ledgerOf(ids);
    expect(ledger).toHaveLength(6);
    expect(ledger.every((row) => row.kind === 'message_charge')).toBe(true);
    const moved = await call(readMessage, { params: { id: onA[0]!.id }, apiKey: account.apiKey });
    expect(moved.body.history).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ status: 'rerouted', from: a.phone, to: b.phone, error: 'phone offline' }),
      ]),
    );
    const rerouted = await db()
      .select()
      .from(events)
      .where(and(eq(events.accountId, account.accountId), eq(events.type, 'message.rerouted')));
    expect(rerouted).toHaveLength(onA.length);
  });

  it('a message sent from one phone never moves', async () => {
    const { account, a } = await groupOfTwo();
    const res = await sendAs(account, { from: a.phone, to: testNumber() });
    await goOffline(a.phoneId);
    expect(await rerouteStranded(db())).toBe(0);
    const [row] = await db().select().from(messages).where(eq(messages.id, res.body.id));
    expect(row).toMatchObject({ phoneId: a.phoneId, status: 'queued' });
  });

  it('a message waiting with no online phone moves once one comes online', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const waiting = await sendAs(account, { from_group: account.defaultGroupId, to: testNumber() });
    const later = await addTestPhone(db(), account, { online: true });
    expect(await rerouteStranded(db())).toBe(1);
    const [row] = await db().select().from(messages).where(eq(messages.id, waiting.body.id));
    expect(row).toMatchObject({ phoneId: later.phoneId, from: later.phone, status: 'queued' });
  });

  it('a retryable failure moves a handed-out group message to another phone; a final one fails and refunds', async () => {
    const { account, a, b, group } = await groupOfTwo();
    await goOffline(b.phoneId);
    const first = await sendAs(account, { from_group: group, to: testNumber() });
    const second = await sendAs(account, { from_group: group, to: testNumber() });
    expect([first.body.from, second.body.from]).toEqual([a.phone, a.phone]);
    await call(claim, { body: { limit: 5 }, apiKey: a.deviceKey });
    await db().update(phones).set({ status: 'online' }).where(eq(phones.id, b.phoneId));
    const retried = await call(reportStatus, {
      params: { id: first.body.id },
      body: { status: 'failed', error: 'radio off', error_code: 'RESULT_ERROR_RADIO_OFF' },
      apiKey: a.deviceKey,
    });
    expect(retried.status).toBe(200);
    expect(retried.body).toMatchObject({ status: 'queued', from: b.phone });
    const final = await call(reportStatus, {
      params: { id: second.body.id },
      body: { status: 'failed', error: 'RESULT_ERROR_FDN_CHECK_FAILURE' },
      apiKey: a.deviceKey,
    });
    expect(final.body).toMatchObject({ status: 'failed' });
    const again = await call(claim, { body: { limit: 5 }, apiKey: b.deviceKey });
    expect(again.body.data.map((m: { id: string }) => m.id)).toEqual([first.body.id]);
    const ledger = await ledgerOf([first.body.id, second.body.id]);
    expect(ledger.filter((row) => row.messageId === first.body.id).map((row) => row.kind)).toEqual(['message_charge']);
    expect(
      ledger
        .filter((row) => row.messageId === second.body.id)
        .map((row) => row.kind)
        .sort(),
    ).toEqual(['message_charge', 'refund']);
  });

  it('a retryable failure of a message sent from one phone, with no attempt left, fails', async () => {
    const { account, a } = await groupOfTwo();
    await db().update(accounts).set({ maxAttempts: 1 }).where(eq(accounts.id, account.accountId));
    const res = await sendAs(account, { from: a.phone, to: testNumber() });
    await call(claim, { body: { limit: 5 }, apiKey: a.deviceKey });
    const failed = await call(reportStatus, {
      params: { id: res.body.id },
      body: { status: 'failed', error_code: 'RESULT_ERROR_NO_SERVICE' },
      apiKey: a.deviceKey,
    });
    expect(failed.body).toMatchObject({ status: 'failed', error: 'RESULT_ERROR_NO_SERVICE' });
  });

  it('a bulk through a group spreads its recipients over the online phones', async () => {
    const { account, a, b, group } = await groupOfTwo();
    const res = await call(sendBulk, {
      body: { from_group: group, recipients: Array.from({ length: 10 }, () => testNumber()), content: 'Sale' },
      apiKey: account.apiKey,
    });
    expect(res.status).toBe(201);
    const rows = await db().select().from(messages).where(inArray(messages.id, res.body.message_ids));
    expect(rows.filter((row) => row.phoneId === a.phoneId)).toHaveLength(5);
    expect(rows.filter((row) => row.phoneId === b.phoneId)).toHaveLength(5);
    expect(rows.every((row) => row.fromGroup === group)).toBe(true);
  });

  it.runIf(onRealPostgres())(
    'two instances failing over the same phone’s messages move each message once',
    async () => {
      const { account, a, group } = await groupOfTwo(500);
      await db().update(phones).set({ status: 'offline' }).where(eq(phones.id, a.phoneId));
      const stranded = await db()
        .insert(messages)
        .values(
          Array.from({ length: 200 }, () => ({
            accountId: account.accountId,
            phoneId: a.phoneId,
            groupId: group,
            fromGroup: group,
            direction: 'outbound' as const,
            from: a.phone,
            to: testNumber(),
            content: 'x',
            status: 'queued' as const,
            segments: 1,
            encoding: 'GSM-7' as const,
          })),
        )
        .returning({ id: messages.id });
      const url = new URL(process.env.TEST_DATABASE_URL!);
      url.pathname = `/${handle().name}`;
      const other = openPostgres(url.toString(), { max: 4 });
      try {
        const [here, there] = await Promise.all([rerouteStranded(db()), rerouteStranded(other.db)]);
        expect(here + there).toBe(200);
      } finally {
        await other.close();
      }
      const [moves] = await db()
        .select({ count: sql<number>`count(*)::int`, distinct: sql<number>`count(distinct message_id)::int` })
        .from(messageStatusHistory)
        .where(
          and(
            eq(messageStatusHistory.status, 'rerouted'),
            inArray(
              messageStatusHistory.messageId,
              stranded.map((row) => row.id),
            ),
          ),
        );
      expect(moves).toEqual({ count: 200, distinct: 200 });
      const left = await db().select({ id: messages.id }).from(messages).where(eq(messages.phoneId, a.phoneId));
      expect(left).toHaveLength(0);
    },
  );
});

describe('STOP opt-outs', () => {
  function inbound(who: TestAccount, from: string, content: string, id = crypto.randomUUID()) {
    return call(received, { body: { from, content, device_message_id: id }, apiKey: who.deviceKey });
  }

  it('STOP then a send answers 422 and charges nothing; START then a send goes out', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const customer = testNumber();
    expect((await inbound(account, customer, ' Stop\n')).status).toBe(201);
    const refused = await sendAs(account, { from: account.phone, to: customer });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: 'RECIPIENT_OPTED_OUT', to: customer });
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(10);
    expect((await inbound(account, customer, 'start')).status).toBe(201);
    expect((await sendAs(account, { from: account.phone, to: customer })).status).toBe(201);
    const types = (
      await db()
        .select({ type: events.type, payload: events.payload })
        .from(events)
        .where(and(eq(events.accountId, account.accountId), sql`${events.type} like 'recipient.%'`))
        .orderBy(events.createdAt)
    ).map((row) => [row.type, (row.payload as { phone: string }).phone]);
    expect(types).toEqual([
      ['recipient.opted_out', customer],
      ['recipient.opted_in', customer],
    ]);
  });

  it('a STOP to account A does not block account B', async () => {
    const a = await createTestAccount(db(), { credits: 10 });
    const b = await createTestAccount(db(), { credits: 10 });
    const customer = testNumber();
    await inbound(a, customer, 'STOP');
    expect((await sendAs(a, { from: a.phone, to: customer })).status).toBe(422);
    expect((await sendAs(b, { from: b.phone, to: customer })).status).toBe(201);
  });

  it('a text that merely contains a stop word opts nobody out; a repeated STOP is recorded once', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const customer = testNumber();
    await inbound(account, customer, 'please stop calling me');
    expect((await sendAs(account, { from: account.phone, to: customer })).status).toBe(201);
    await inbound(account, customer, 'STOP');
    await inbound(account, customer, 'STOP');
    const optedOut = await db()
      .select()
      .from(events)
      .where(and(eq(events.accountId, account.accountId), eq(events.type, 'recipient.opted_out')));
    expect(optedOut).toHaveLength(1);
  });

  it('a bulk of 10 with 2 opted out and 1 missing variable charges 7 and lists the 3', async () => {
    const account = await createTestAccount(db(), { credits: 50 });
    const numbers = Array.from({ length: 10 }, () => testNumber());
    await inbound(account, numbers[2]!, 'STOP');
    await inbound(account, numbers[5]!, 'unsubscribe');
    const recipients = numbers.map((to, index) =>
      index === 7 ? { to, vars: { other: 'x' } } : { to, vars: { name: `N${index}` } },
    );
    const res = await call(sendBulk, {
      body: { from: account.phone, recipients, content: 'Hi {{name}}!' },
      apiKey: account.apiKey,
    });
    expect(res.status).toBe(201);
    expect(res.body.count).toBe(7);
    expect(res.body.rejected).toEqual([
      expect.objectContaining({ index: 2, to: numbers[2], code: 'RECIPIENT_OPTED_OUT' }),
      expect.objectContaining({ index: 5, to: numbers[5], code: 'RECIPIENT_OPTED_OUT' }),
      expect.objectContaining({ index: 7, to: numbers[7], code: 'VALIDATION_ERROR', field: 'recipients.7.vars.name' }),
    ]);
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(43);
    const rows = await db().select().from(messages).where(inArray(messages.id, res.body.message_ids));
    expect(rows.find((row) => row.to === numbers[0])?.content).toBe('Hi N0!');
  });

  it('a bulk whose every recipient opted out answers 422, charging nothing', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const customer = testNumber();
    await inbound(account, customer, 'STOP');
    const res = await call(sendBulk, {
      body: { from: account.phone, recipients: [customer], content: 'x' },
      apiKey: account.apiKey,
    });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('RECIPIENT_OPTED_OUT');
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(10);
  });

  it('sends the account’s confirmation, when set, from the phone that was texted', async () => {
    const { PATCH: settings } = await import('@/app/api/v1/opt-outs/settings/route');
    const account = await createTestAccount(db(), { credits: 10 });
    const set = await call(settings, {
      method: 'PATCH',
      body: { confirmation_reply: 'You are unsubscribed.' },
      apiKey: account.apiKey,
    });
    expect(set.status).toBe(200);
    const customer = testNumber();
    await inbound(account, customer, 'STOP');
    const [reply] = await db()
      .select()
      .from(messages)
      .where(and(eq(messages.to, customer), eq(messages.direction, 'outbound')));
    expect(reply).toMatchObject({ from: account.phone, content: 'You are unsubscribed.', status: 'queued' });
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(9);
  });
});

describe('dry run', () => {
  it('a single send previews the message and the balance, and writes nothing', async () => {
    const account = await createTestAccount(db(), { credits: 3 });
    const to = testNumber();
    const res = await sendAs(account, { from: account.phone, to, content: 'Привет', dry_run: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      dry_run: true,
      messages: [{ to, from: account.phone, content: 'Привет', encoding: 'UCS-2', segments: 1, credits: 1, sim: null }],
      rejected: [],
      groups: [
        { group_id: account.defaultGroupId, name: expect.any(String), credits: 1, balance: 3, balance_after: 2 },
      ],
      sufficient: true,
    });
    const written = await db().select().from(messages).where(eq(messages.accountId, account.accountId));
    expect(written).toHaveLength(0);
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(3);
  });

  it('a bulk previews rendered texts, rejections and an insufficient balance, writing no row and moving no credit', async () => {
    const account = await createTestAccount(db(), { credits: 1 });
    const customer = testNumber();
    await call(received, { body: { from: customer, content: 'STOP' }, apiKey: account.deviceKey });
    const [a, b] = [testNumber(), testNumber()];
    const res = await call(sendBulk, {
      body: {
        from: account.phone,
        recipients: [
          { to: a, vars: { name: 'Ada' } },
          { to: b, vars: { name: 'Bob' } },
          { to: customer, vars: { name: 'C' } },
        ],
        content: 'Hi {{name}}',
        dry_run: true,
      },
      apiKey: account.apiKey,
    });
    expect(res.status).toBe(200);
    expect(res.body.messages.map((m: { content: string }) => m.content)).toEqual(['Hi Ada', 'Hi Bob']);
    expect(res.body.rejected).toEqual([expect.objectContaining({ to: customer, code: 'RECIPIENT_OPTED_OUT' })]);
    expect(res.body.groups[0]).toMatchObject({ credits: 2, balance: 1, balance_after: -1 });
    expect(res.body.sufficient).toBe(false);
    const written = await db()
      .select()
      .from(messages)
      .where(and(eq(messages.accountId, account.accountId), eq(messages.direction, 'outbound')));
    expect(written).toHaveLength(0);
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(1);
  });
});
