import { and, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { POST as sendBulk } from '@/app/api/v1/bulk-messages/route';
import { POST as claim } from '@/app/api/v1/device/outbox/claim/route';
import { GET as readMessage } from '@/app/api/v1/messages/[id]/route';
import { POST as send } from '@/app/api/v1/messages/route';
import { GET as readPhone, PATCH as updatePhone } from '@/app/api/v1/phones/[id]/route';
import { GET as listPhones } from '@/app/api/v1/phones/route';
import { queryRows } from '@/db';
import { messageStatusHistory, messages, phoneGroups, phones, simRecipientCounts, simRecipients } from '@/db/schema';
import { handedOutSql } from '@/lib/messages/pacing';
import { rerouteStranded } from '@/lib/messages/reroute';
import { sendMessage } from '@/lib/messages/send';
import { onRealPostgres } from '../database';
import { earlier } from '../earlier';
import { addTestPhone, balanceOf, createTestAccount, type TestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { latch } from '../latch';
import { errorCodeOf, someoneWaitsOnALock } from '../poll';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

function patchPhone(who: TestAccount, id: string, body: Record<string, unknown>) {
  return call(updatePhone, { method: 'PATCH', params: { id }, body, apiKey: who.apiKey });
}

function sendAs(who: TestAccount, body: Record<string, unknown>) {
  return call(send, { body: { content: 'Hello', ...body }, apiKey: who.apiKey });
}

function claimAs(deviceKey: string, body: Record<string, unknown> = { limit: 10 }) {
  return call(claim, { path: '/api/v1/device/outbox/claim', body, apiKey: deviceKey });
}

async function newGroup(who: TestAccount, credits = 100): Promise<number> {
  const name = `g-${crypto.randomUUID()}`;
  const [group] = await db()
    .insert(phoneGroups)
    .values({ accountId: who.accountId, name, nameKey: name, balance: credits })
    .returning({ id: phoneGroups.id });
  return group!.id;
}

/** Moves the phone's hand-outs back in time for its pacing, as if they had happened `ms` earlier. */
async function ageHandOuts(phoneId: string, ms: number): Promise<void> {
  await db().execute(sql`
    update ${messageStatusHistory} h set at = ${earlier(sql`h.at`, ms)}
    from ${messages} m where m.account_id = h.account_id and m.id = h.message_id and m.phone_id = ${phoneId}::uuid
      and h.status = 'dispatched'`);
}

describe('PATCH /api/v1/phones/{id}: quotas', () => {
  it('sets and clears hourly_cap, monthly_recipient_cap and jitter_seconds, and GET shows the usage', async () => {
    const owner = await createTestAccount(db(), { credits: 10 });
    const res = await patchPhone(owner, owner.phoneId, {
      hourly_cap: 120,
      monthly_recipient_cap: 200,
      jitter_seconds: 30,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      hourly_cap: 120,
      monthly_recipient_cap: 200,
      jitter_seconds: 30,
      near_cap: false,
    });
    expect(res.body.usage).toEqual({
      this_minute: 0,
      this_hour: 0,
      today: 0,
      recipients_this_month: 0,
      month_resets_at: expect.stringMatching(/^\d{4}-\d\d-01T00:00:00\.000Z$/),
    });
    const cleared = await patchPhone(owner, owner.phoneId, { hourly_cap: null, monthly_recipient_cap: null });
    expect(cleared.body).toMatchObject({ hourly_cap: null, monthly_recipient_cap: null, jitter_seconds: 30 });
    const read = await call(readPhone, { params: { id: owner.phoneId }, apiKey: owner.apiKey });
    expect(read.status).toBe(200);
    expect(read.body.usage.today).toBe(0);
  });

  it.each([
    ['jitter_seconds 301', { jitter_seconds: 301 }, 'jitter_seconds'],
    ['jitter_seconds negative', { jitter_seconds: -1 }, 'jitter_seconds'],
    ['jitter_seconds null', { jitter_seconds: null }, 'jitter_seconds'],
    ['hourly_cap 0', { hourly_cap: 0 }, 'hourly_cap'],
    ['hourly_cap as a string', { hourly_cap: '10' }, 'hourly_cap'],
    ['monthly_recipient_cap fractional', { monthly_recipient_cap: 2.5 }, 'monthly_recipient_cap'],
  ])('answers 400 naming the field for %s', async (_name, body, field) => {
    const owner = await createTestAccount(db());
    const res = await patchPhone(owner, owner.phoneId, body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(field);
  });
});

describe('the monthly recipient cap', () => {
  it('refuses a fourth distinct recipient from a phone capped at 3 and still sends to those counted', async () => {
    const owner = await createTestAccount(db(), { credits: 20 });
    await patchPhone(owner, owner.phoneId, { monthly_recipient_cap: 3 });
    const [a, b, c, d] = [testNumber(), testNumber(), testNumber(), testNumber()];
    for (const to of [a, b, c, a]) expect((await sendAs(owner, { from: owner.phone, to })).status).toBe(201);
    const before = await balanceOf(db(), owner.defaultGroupId);
    const refused = await sendAs(owner, { from: owner.phone, to: d });
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('RECIPIENT_QUOTA_REACHED');
    expect(refused.body.detail).toContain(owner.phone);
    expect(refused.body.detail).toContain('3');
    expect(refused.body).toMatchObject({ phone: owner.phone, monthly_recipient_cap: 3 });
    expect(refused.body.resets_at).toMatch(/^\d{4}-\d\d-01T00:00:00\.000Z$/);
    expect(await balanceOf(db(), owner.defaultGroupId)).toBe(before);
    // Already counted this month: accepted, and counted once.
    expect((await sendAs(owner, { from: owner.phone, to: b })).status).toBe(201);
    const read = await call(readPhone, { params: { id: owner.phoneId }, apiKey: owner.apiKey });
    expect(read.body.usage.recipients_this_month).toBe(3);
    expect(read.body.near_cap).toBe(true);
    const listed = await call(listPhones, { apiKey: owner.apiKey });
    expect(listed.body.data[0]).toMatchObject({ id: owner.phoneId, near_cap: true });
  });

  it('refuses through the batched statement and alone alike (a send in a transaction goes alone)', async () => {
    const owner = await createTestAccount(db(), { credits: 20 });
    await patchPhone(owner, owner.phoneId, { monthly_recipient_cap: 1 });
    await sendMessage(db(), owner.accountId, {
      origin: 'api',
      from: owner.phone,
      to: testNumber(),
      content: 'batched',
    });
    const refusedBatched = errorCodeOf(
      sendMessage(db(), owner.accountId, { origin: 'api', from: owner.phone, to: testNumber(), content: 'batched' }),
    );
    const refusedAlone = errorCodeOf(
      db().transaction((tx) =>
        sendMessage(tx, owner.accountId, { origin: 'api', from: owner.phone, to: testNumber(), content: 'x' }),
      ),
    );
    expect(await refusedBatched).toBe('RECIPIENT_QUOTA_REACHED');
    expect(await refusedAlone).toBe('RECIPIENT_QUOTA_REACHED');
  });

  it('a group send moves to the phone with room and keeps a known recipient on its phone', async () => {
    const owner = await createTestAccount(db(), { credits: 20 });
    const groupId = await newGroup(owner);
    const full = await addTestPhone(db(), owner, { groupId, online: true });
    const roomy = await addTestPhone(db(), owner, { groupId, online: true });
    await patchPhone(owner, full.phoneId, { monthly_recipient_cap: 3 });
    await patchPhone(owner, roomy.phoneId, { monthly_recipient_cap: 3 });
    const known = [testNumber(), testNumber(), testNumber()];
    for (const to of known) expect((await sendAs(owner, { from: full.phone, to })).status).toBe(201);

    const moved = await sendAs(owner, { from_group: groupId, to: testNumber() });
    expect(moved.status).toBe(201);
    expect(moved.body.from).toBe(roomy.phone);
    const kept = await sendAs(owner, { from_group: groupId, to: known[1] });
    expect(kept.status).toBe(201);
    expect(kept.body.from).toBe(full.phone);

    // The roomy phone fills up too: a new number has no phone left.
    await sendAs(owner, { from_group: groupId, to: testNumber() });
    await sendAs(owner, { from_group: groupId, to: testNumber() });
    const none = await sendAs(owner, { from_group: groupId, to: testNumber() });
    expect(none.status).toBe(422);
    expect(none.body.code).toBe('RECIPIENT_QUOTA_REACHED');
    expect(none.body.group_id).toBe(groupId);
  });

  it('a group’s failover moves a message to a phone with room, where its recipient then counts', async () => {
    const owner = await createTestAccount(db(), { credits: 20 });
    const groupId = await newGroup(owner);
    const failing = await addTestPhone(db(), owner, { groupId, online: true });
    const full = await addTestPhone(db(), owner, { groupId, online: true });
    const roomy = await addTestPhone(db(), owner, { groupId, online: true });
    await patchPhone(owner, full.phoneId, { monthly_recipient_cap: 1 });
    await patchPhone(owner, roomy.phoneId, { monthly_recipient_cap: 5 });
    expect((await sendAs(owner, { from: full.phone, to: testNumber() })).status).toBe(201);
    const to = testNumber();
    const [stranded] = await db()
      .insert(messages)
      .values({
        accountId: owner.accountId,
        phoneId: failing.phoneId,
        groupId,
        fromGroup: groupId,
        direction: 'outbound',
        from: failing.phone,
        to,
        content: 'x',
        status: 'queued',
        segments: 1,
        encoding: 'GSM-7',
      })
      .returning({ id: messages.id });
    await db().update(phones).set({ status: 'offline' }).where(eq(phones.id, failing.phoneId));
    expect(await rerouteStranded(db())).toBeGreaterThanOrEqual(1);
    const [moved] = await db()
      .select({ phoneId: messages.phoneId })
      .from(messages)
      .where(eq(messages.id, stranded!.id));
    expect(moved?.phoneId).toBe(roomy.phoneId);
    const counted = await db()
      .select({ phoneId: simRecipients.phoneId })
      .from(simRecipients)
      .where(and(eq(simRecipients.accountId, owner.accountId), eq(simRecipients.recipient, to)));
    expect(counted).toEqual([{ phoneId: roomy.phoneId }]);
  });

  it('a bulk through a group plans recipients across the phones by their room and says how many each takes', async () => {
    const owner = await createTestAccount(db(), { credits: 50 });
    const groupId = await newGroup(owner);
    const first = await addTestPhone(db(), owner, { groupId, online: true });
    const second = await addTestPhone(db(), owner, { groupId, online: true });
    await patchPhone(owner, first.phoneId, { monthly_recipient_cap: 2 });
    await patchPhone(owner, second.phoneId, { monthly_recipient_cap: 3 });
    const known = testNumber();
    expect((await sendAs(owner, { from: first.phone, to: known })).status).toBe(201);
    const recipients = [known, testNumber(), testNumber(), testNumber(), testNumber(), testNumber()];
    const res = await call(sendBulk, {
      body: { from_group: groupId, recipients, content: 'Sale' },
      apiKey: owner.apiKey,
    });
    expect(res.status).toBe(201);
    expect(res.body.count).toBe(5);
    const taken = Object.fromEntries(res.body.phones.map((p: { phone: string; count: number }) => [p.phone, p.count]));
    expect(taken).toEqual({ [first.phone]: 2, [second.phone]: 3 });
    expect(res.body.rejected).toEqual([
      expect.objectContaining({ index: 5, to: recipients[5], code: 'RECIPIENT_QUOTA_REACHED' }),
    ]);
    const [knownRow] = await db()
      .select({ phoneId: messages.phoneId })
      .from(messages)
      .where(and(eq(messages.accountId, owner.accountId), eq(messages.bulkId, res.body.id), eq(messages.to, known)));
    expect(knownRow?.phoneId).toBe(first.phoneId);
    expect(res.body.estimated_completion_at).toEqual(expect.any(String));
  });

  it('a bulk from a phone sends to its known recipients and new ones while it has room, and charges only those', async () => {
    const owner = await createTestAccount(db(), { credits: 50 });
    await patchPhone(owner, owner.phoneId, { monthly_recipient_cap: 2 });
    const known = testNumber();
    await sendAs(owner, { from: owner.phone, to: known });
    const before = await balanceOf(db(), owner.defaultGroupId);
    const recipients = [testNumber(), known, testNumber()];
    const res = await call(sendBulk, {
      body: { from: owner.phone, recipients, content: 'Sale' },
      apiKey: owner.apiKey,
    });
    expect(res.status).toBe(201);
    expect(res.body.count).toBe(2);
    expect(res.body.phones).toEqual([{ phone: owner.phone, count: 2 }]);
    expect(res.body.rejected.map((r: { index: number; code: string }) => [r.index, r.code])).toEqual([
      [2, 'RECIPIENT_QUOTA_REACHED'],
    ]);
    expect(await balanceOf(db(), owner.defaultGroupId)).toBe(before - 2);
    const refused = await call(sendBulk, {
      body: { from: owner.phone, recipients: [testNumber()], content: 'Sale' },
      apiKey: owner.apiKey,
    });
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('RECIPIENT_QUOTA_REACHED');
  });

  it.runIf(onRealPostgres())(
    'a send that passed the check before a concurrent send took the last room is refused whole when it commits',
    async () => {
      const owner = await createTestAccount(db(), { credits: 10 });
      await patchPhone(owner, owner.phoneId, { monthly_recipient_cap: 1 });
      const { reached: released, reach: release } = latch();
      const { reached: firstDone, reach: firstSent } = latch();
      // The first send takes the last room and holds its transaction open until released.
      const first = db().transaction(async (tx) => {
        await sendMessage(tx, owner.accountId, {
          origin: 'api',
          from: owner.phone,
          to: testNumber(),
          content: 'first',
        });
        firstSent();
        await released;
      });
      await firstDone;
      // The second's snapshot shows the room free: it passes the check and waits for the group's row.
      const second = errorCodeOf(
        db().transaction((tx) =>
          sendMessage(tx, owner.accountId, { origin: 'api', from: owner.phone, to: testNumber(), content: 'second' }),
        ),
      );
      await someoneWaitsOnALock(db());
      release();
      await first;
      expect(await second).toBe('RECIPIENT_QUOTA_REACHED');
      expect(await balanceOf(db(), owner.defaultGroupId)).toBe(9);
      const sent = await db().select({ id: messages.id }).from(messages).where(eq(messages.accountId, owner.accountId));
      expect(sent).toHaveLength(1);
    },
  );

  it.runIf(onRealPostgres())('two sends racing for a phone’s last recipient never both pass it', async () => {
    const owner = await createTestAccount(db(), { credits: 100 });
    await patchPhone(owner, owner.phoneId, { monthly_recipient_cap: 5 });
    for (let i = 0; i < 4; i++)
      await sendMessage(db(), owner.accountId, { origin: 'api', from: owner.phone, to: testNumber(), content: 'x' });
    const before = await balanceOf(db(), owner.defaultGroupId);
    // Alone and batched at once: each in its own transaction, so none shares the other's statement.
    const racers = Array.from({ length: 8 }, (_, i) =>
      i % 2 === 0
        ? errorCodeOf(
            db().transaction((tx) =>
              sendMessage(tx, owner.accountId, { origin: 'api', from: owner.phone, to: testNumber(), content: 'race' }),
            ),
          )
        : errorCodeOf(
            sendMessage(db(), owner.accountId, { origin: 'api', from: owner.phone, to: testNumber(), content: 'race' }),
          ),
    );
    const codes = await Promise.all(racers);
    expect(codes.filter((code) => code === undefined)).toHaveLength(1);
    expect(codes.filter((code) => code === 'RECIPIENT_QUOTA_REACHED')).toHaveLength(7);
    expect(await balanceOf(db(), owner.defaultGroupId)).toBe(before - 1);
    const [counter] = await db()
      .select({ recipients: simRecipientCounts.recipients })
      .from(simRecipientCounts)
      .where(and(eq(simRecipientCounts.accountId, owner.accountId), eq(simRecipientCounts.phoneId, owner.phoneId)));
    expect(counter?.recipients).toBe(5);
    const [rows] = await queryRows<{ n: number }>(
      db(),
      sql`select count(*)::int as n from ${simRecipients} where account_id = ${owner.accountId}::uuid and phone_id = ${owner.phoneId}::uuid`,
    );
    expect(Number(rows?.n)).toBe(5);
  });
});

describe('the hourly cap and the jitter', () => {
  it('holds messages past the hourly cap in queued with held_reason, then releases them when the hour has room', async () => {
    const owner = await createTestAccount(db(), { credits: 20 });
    await patchPhone(owner, owner.phoneId, { messages_per_minute: 60, hourly_cap: 2 });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await sendAs(owner, { from: owner.phone, to: testNumber() })).body.id);
    expect((await claimAs(owner.deviceKey)).body.data).toHaveLength(2);
    expect((await claimAs(owner.deviceKey)).body.data).toHaveLength(0);
    const held = await call(readMessage, { params: { id: ids[2] as string }, apiKey: owner.apiKey });
    expect(held.body).toMatchObject({ status: 'queued', held_reason: 'hourly_cap' });
    const usage = await call(readPhone, { params: { id: owner.phoneId }, apiKey: owner.apiKey });
    expect(usage.body.usage).toMatchObject({ this_minute: 2, this_hour: 2, today: 2 });
    expect(usage.body.near_cap).toBe(true);

    // Half an hour on, still held; an hour on, the window has room again.
    await ageHandOuts(owner.phoneId, 30 * 60_000);
    expect((await claimAs(owner.deviceKey)).body.data).toHaveLength(0);
    await ageHandOuts(owner.phoneId, 31 * 60_000);
    const released = (await claimAs(owner.deviceKey)).body.data;
    expect(released.map((m: { id: string }) => m.id)).toEqual([ids[2]]);
    expect(released[0].held_reason).toBeNull();
  });

  it.runIf(onRealPostgres())(
    'a claim that waits for the phone’s lock counts what the claim holding it handed out',
    async () => {
      // The claim sends its count of hand-outs behind its lock, without waiting for it: the count
      // must still run once the lock is held, and so see the hand-out committed before.
      const owner = await createTestAccount(db(), { credits: 10 });
      await patchPhone(owner, owner.phoneId, { messages_per_minute: 1 });
      const ids: string[] = [];
      for (let i = 0; i < 2; i++) ids.push((await sendAs(owner, { from: owner.phone, to: testNumber() })).body.id);
      const { reached: released, reach: release } = latch();
      const { reached: holding, reach: locked } = latch();
      // Another claim, as the claim does it: the phone's lock, then a hand-out with its history row.
      const other = db().transaction(async (tx) => {
        await tx.execute(sql`select id from phones where account_id = ${owner.accountId}::uuid
          and id = ${owner.phoneId}::uuid for no key update`);
        const now = new Date();
        await tx
          .update(messages)
          .set({ status: 'dispatched', updatedAt: now })
          .where(and(eq(messages.accountId, owner.accountId), eq(messages.id, ids[0] as string)));
        await tx
          .insert(messageStatusHistory)
          .values({ accountId: owner.accountId, messageId: ids[0] as string, status: 'dispatched', at: now });
        locked();
        await released;
      });
      await holding;
      const claiming = claimAs(owner.deviceKey);
      await someoneWaitsOnALock(db());
      release();
      await other;
      const answer = await claiming;
      expect(answer.status).toBe(200);
      expect(answer.body.data).toEqual([]);
      const [second] = await db()
        .select({ status: messages.status })
        .from(messages)
        .where(eq(messages.id, ids[1] as string));
      expect(second?.status).toBe('queued');
    },
  );

  it('reads hand-outs through messages_phone_handed_idx: its condition and the counts’ are one', async () => {
    const owner = await createTestAccount(db(), { credits: 1 });
    // A backlog of sends never claimed, which the index leaves out.
    await db().execute(sql`
      insert into messages (account_id, phone_id, group_id, direction, "from", "to", content, status, segments, encoding)
      select ${owner.accountId}::uuid, ${owner.phoneId}::uuid, ${owner.defaultGroupId}::int, 'outbound', ${owner.phone},
        '+4477009' || lpad(i::text, 5, '0'), 'Backlog', 'queued', 1, 'GSM-7'
      from generate_series(1, 2000) i`);
    await db().execute(sql`analyze messages`);
    const plan = await queryRows<{ 'QUERY PLAN': string }>(
      db(),
      sql`explain select 1 from messages m where m.account_id = ${owner.accountId}::uuid
        and m.phone_id = ${owner.phoneId}::uuid and ${handedOutSql(sql`m`)}
        and m.updated_at >= now() - interval '1 hour'`,
    );
    expect(plan.map((row) => row['QUERY PLAN']).join('\n')).toContain('messages_phone_handed_idx');
  });

  it('hands out one message at a time with a jitter, each after its random delay', async () => {
    const owner = await createTestAccount(db(), { credits: 20 });
    await patchPhone(owner, owner.phoneId, { messages_per_minute: 60, jitter_seconds: 300 });
    for (let i = 0; i < 3; i++) await sendAs(owner, { from: owner.phone, to: testNumber() });
    expect((await claimAs(owner.deviceKey)).body.data).toHaveLength(1);
    // The delay after the first hand-out is up to 300 s: five minutes on, the next one goes.
    await ageHandOuts(owner.phoneId, 301_000);
    expect((await claimAs(owner.deviceKey)).body.data).toHaveLength(1);
  });
});
