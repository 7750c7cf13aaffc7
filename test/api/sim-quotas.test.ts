import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { POST as sendBulk } from '@/app/api/v1/bulk-messages/route';
import { POST as claim } from '@/app/api/v1/device/outbox/claim/route';
import { POST as heartbeat } from '@/app/api/v1/heartbeats/route';
import { GET as readMessage } from '@/app/api/v1/messages/[id]/route';
import { POST as send } from '@/app/api/v1/messages/route';
import { GET as readPhone, PATCH as updatePhone } from '@/app/api/v1/phones/[id]/route';
import { phoneGroups, simRecipientCounts } from '@/db/schema';
import { sendMessage } from '@/lib/messages/send';
import { onRealPostgres } from '../database';
import { addTestPhone, balanceOf, createTestAccount, type TestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { errorCodeOf } from '../poll';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

function patchPhone(who: TestAccount, id: string, body: Record<string, unknown>) {
  return call(updatePhone, { method: 'PATCH', params: { id }, body, apiKey: who.apiKey });
}

function sendAs(who: TestAccount, body: Record<string, unknown>) {
  return call(send, { body: { content: 'Hello', ...body }, apiKey: who.apiKey });
}

/** The phone's device reports `sims` SIM cards (slots 1..sims), as a heartbeat says. */
async function reportSims(deviceKey: string, phone: string, sims: number): Promise<void> {
  const res = await call(heartbeat, {
    body: { phone, status: 'online', sims },
    apiKey: deviceKey,
  });
  expect(res.status).toBe(200);
}

async function newGroup(who: TestAccount, credits = 100): Promise<number> {
  const name = `g-${crypto.randomUUID()}`;
  const [group] = await db()
    .insert(phoneGroups)
    .values({ accountId: who.accountId, name, nameKey: name, balance: credits })
    .returning({ id: phoneGroups.id });
  return group!.id;
}

describe('quotas per SIM slot', () => {
  it('a recipient cap of 2 lets 2 new recipients through on each SIM of a two-SIM phone', async () => {
    const owner = await createTestAccount(db(), { credits: 30 });
    await reportSims(owner.deviceKey, owner.phone, 2);
    await patchPhone(owner, owner.phoneId, { monthly_recipient_cap: 2 });
    const [a, b, c, d, e] = [testNumber(), testNumber(), testNumber(), testNumber(), testNumber()];
    for (const to of [a, b]) expect((await sendAs(owner, { from: owner.phone, to, sim: 1 })).status).toBe(201);
    for (const to of [c, d]) expect((await sendAs(owner, { from: owner.phone, to, sim: 2 })).status).toBe(201);

    const before = await balanceOf(db(), owner.defaultGroupId);
    const full = await sendAs(owner, { from: owner.phone, to: e, sim: 2 });
    expect(full.status).toBe(422);
    expect(full.body).toMatchObject({ code: 'RECIPIENT_QUOTA_REACHED', phone: owner.phone, sim: 2 });
    expect(full.body.detail).toContain('slot 2');
    // A message without `sim` counts for the first slot: full for a new number, open for a known one.
    const unnamed = await sendAs(owner, { from: owner.phone, to: e });
    expect(unnamed.status).toBe(422);
    expect(unnamed.body.sim).toBe(1);
    expect(await balanceOf(db(), owner.defaultGroupId)).toBe(before);
    expect((await sendAs(owner, { from: owner.phone, to: a })).status).toBe(201);
    // A number one SIM texted is new to the other.
    expect((await sendAs(owner, { from: owner.phone, to: a, sim: 2 })).status).toBe(422);
    expect((await sendAs(owner, { from: owner.phone, to: c, sim: 2 })).status).toBe(201);

    const read = await call(readPhone, { params: { id: owner.phoneId }, apiKey: owner.apiKey });
    expect(read.status).toBe(200);
    expect(read.body.usage).toMatchObject({
      recipients_this_month: 4,
      sims: [
        { sim: 1, this_hour: 0, today: 0, recipients_this_month: 2 },
        { sim: 2, this_hour: 0, today: 0, recipients_this_month: 2 },
      ],
    });
    expect(read.body.near_cap).toBe(true);
  });

  it('a one-SIM phone counts as one SIM whatever slot a send names, and shows no per-SIM usage', async () => {
    const owner = await createTestAccount(db(), { credits: 30 });
    await reportSims(owner.deviceKey, owner.phone, 1);
    await patchPhone(owner, owner.phoneId, { monthly_recipient_cap: 2 });
    expect((await sendAs(owner, { from: owner.phone, to: testNumber(), sim: 1 })).status).toBe(201);
    expect((await sendAs(owner, { from: owner.phone, to: testNumber() })).status).toBe(201);
    const refused = await sendAs(owner, { from: owner.phone, to: testNumber(), sim: 1 });
    expect(refused.status).toBe(422);
    expect(refused.body.sim).toBeUndefined();
    const read = await call(readPhone, { params: { id: owner.phoneId }, apiKey: owner.apiKey });
    expect(read.body.usage.recipients_this_month).toBe(2);
    expect(read.body.usage.sims).toBeUndefined();
    const counters = await db()
      .select({ sim: simRecipientCounts.sim, recipients: simRecipientCounts.recipients })
      .from(simRecipientCounts)
      .where(eq(simRecipientCounts.phoneId, owner.phoneId));
    expect(counters).toEqual([{ sim: 1, recipients: 2 }]);
  });

  it('a bulk from a two-SIM phone plans its recipients within the cap of the SIM it names', async () => {
    const owner = await createTestAccount(db(), { credits: 30 });
    await reportSims(owner.deviceKey, owner.phone, 2);
    await patchPhone(owner, owner.phoneId, { monthly_recipient_cap: 2 });
    for (const to of [testNumber(), testNumber()]) await sendAs(owner, { from: owner.phone, to, sim: 1 });
    const recipients = [testNumber(), testNumber(), testNumber()];
    const res = await call(sendBulk, {
      body: { from: owner.phone, sim: 2, recipients, content: 'Sale' },
      apiKey: owner.apiKey,
    });
    expect(res.status).toBe(201);
    expect(res.body.count).toBe(2);
    expect(res.body.rejected).toEqual([
      expect.objectContaining({ index: 2, to: recipients[2], code: 'RECIPIENT_QUOTA_REACHED' }),
    ]);
    // The first SIM is full: the same bulk without `sim` has no room.
    const first = await call(sendBulk, {
      body: { from: owner.phone, recipients: [testNumber()], content: 'Sale' },
      apiKey: owner.apiKey,
    });
    expect(first.status).toBe(422);
    expect(first.body.code).toBe('RECIPIENT_QUOTA_REACHED');
  });

  it('a group send weighs the room and the known recipients of the SIM the message would use', async () => {
    const owner = await createTestAccount(db(), { credits: 30 });
    const groupId = await newGroup(owner);
    const dual = await addTestPhone(db(), owner, { groupId, online: true });
    const single = await addTestPhone(db(), owner, { groupId, online: true });
    await reportSims(dual.deviceKey, dual.phone, 2);
    await patchPhone(owner, dual.phoneId, { monthly_recipient_cap: 1 });
    await patchPhone(owner, single.phoneId, { monthly_recipient_cap: 1 });
    const known = testNumber();
    expect((await sendAs(owner, { from: dual.phone, to: known, sim: 1 })).status).toBe(201);
    expect((await sendAs(owner, { from: single.phone, to: testNumber() })).status).toBe(201);

    // The dual phone's first SIM and the single phone are full; its second SIM has room.
    const second = await sendAs(owner, { from_group: groupId, to: testNumber(), sim: 2 });
    expect(second.status).toBe(201);
    expect(second.body.from).toBe(dual.phone);
    const none = await sendAs(owner, { from_group: groupId, to: testNumber() });
    expect(none.status).toBe(422);
    expect(none.body.code).toBe('RECIPIENT_QUOTA_REACHED');
    // The first SIM texted `known` this month: the conversation stays on it.
    const kept = await sendAs(owner, { from_group: groupId, to: known });
    expect(kept.status).toBe(201);
    expect(kept.body.from).toBe(dual.phone);
  });

  it('the hourly cap holds only the messages of the SIM that used it up', async () => {
    const owner = await createTestAccount(db(), { credits: 30 });
    await reportSims(owner.deviceKey, owner.phone, 2);
    await patchPhone(owner, owner.phoneId, { messages_per_minute: 60, hourly_cap: 1 });
    const ids: string[] = [];
    for (const sim of [1, 1, 2, undefined]) {
      const res = await sendAs(owner, { from: owner.phone, to: testNumber(), ...(sim ? { sim } : {}) });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    const claimed = await call(claim, {
      path: '/api/v1/device/outbox/claim',
      body: { limit: 10 },
      apiKey: owner.deviceKey,
    });
    expect(claimed.status).toBe(200);
    expect(claimed.body.data.map((m: { id: string }) => m.id).sort()).toEqual([ids[0], ids[2]].sort());
    const again = await call(claim, {
      path: '/api/v1/device/outbox/claim',
      body: { limit: 10 },
      apiKey: owner.deviceKey,
    });
    expect(again.body.data).toEqual([]);
    for (const id of [ids[1], ids[3]]) {
      const held = await call(readMessage, { params: { id: id as string }, apiKey: owner.apiKey });
      expect(held.body).toMatchObject({ status: 'queued', held_reason: 'hourly_cap' });
    }
    const read = await call(readPhone, { params: { id: owner.phoneId }, apiKey: owner.apiKey });
    expect(read.body.usage).toMatchObject({
      this_hour: 2,
      sims: [expect.objectContaining({ sim: 1, this_hour: 1 }), expect.objectContaining({ sim: 2, this_hour: 1 })],
    });
  });

  it.runIf(onRealPostgres())('sends racing for one SIM’s last recipient never both pass it', async () => {
    const owner = await createTestAccount(db(), { credits: 100 });
    await reportSims(owner.deviceKey, owner.phone, 2);
    await patchPhone(owner, owner.phoneId, { monthly_recipient_cap: 3 });
    for (let i = 0; i < 3; i++)
      await sendMessage(db(), owner.accountId, {
        origin: 'api',
        from: owner.phone,
        to: testNumber(),
        content: 'x',
        sim: 1,
      });
    for (let i = 0; i < 2; i++)
      await sendMessage(db(), owner.accountId, {
        origin: 'api',
        from: owner.phone,
        to: testNumber(),
        content: 'x',
        sim: 2,
      });
    const racers = Array.from({ length: 8 }, (_, i) => {
      const input = { origin: 'api' as const, from: owner.phone, to: testNumber(), content: 'race', sim: 2 };
      return i % 2 === 0
        ? errorCodeOf(db().transaction((tx) => sendMessage(tx, owner.accountId, input)))
        : errorCodeOf(sendMessage(db(), owner.accountId, input));
    });
    const codes = await Promise.all(racers);
    expect(codes.filter((code) => code === undefined)).toHaveLength(1);
    expect(codes.filter((code) => code === 'RECIPIENT_QUOTA_REACHED')).toHaveLength(7);
    const counters = await db()
      .select({ sim: simRecipientCounts.sim, recipients: simRecipientCounts.recipients })
      .from(simRecipientCounts)
      .where(and(eq(simRecipientCounts.accountId, owner.accountId), eq(simRecipientCounts.phoneId, owner.phoneId)))
      .orderBy(simRecipientCounts.sim);
    expect(counters).toEqual([
      { sim: 1, recipients: 3 },
      { sim: 2, recipients: 3 },
    ]);
  });
});
