import { eq, inArray, sql } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import { queryRows } from '@/db';
import { events, heartbeats, phones } from '@/db/schema';
import { principalForKey } from '@/lib/auth/key-lookup';
import type { AccountPrincipal, DevicePrincipal } from '@/lib/auth/principal';
import { revokePhoneDevice } from '@/lib/devices/phone-devices';
import { isLiveDevice, STREAM_TICK_GATHER_MS } from '@/lib/devices/sessions';
import { recordHeartbeat } from '@/lib/heartbeats/record';
import { onRealPostgres } from '../database';
import { addTestPhone, createTestAccount } from '../fixtures';
import { someoneWaitsOnALock } from '../poll';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

/** The transactions that wrote the phones' heartbeats: rows written by one share its xmin. */
async function transactionsOf(phoneIds: string[]): Promise<number | undefined> {
  const [written] = await queryRows<{ transactions: number }>(
    db(),
    sql`select count(distinct xmin::text)::int as transactions from heartbeats
        where phone_id in (${sql.join(
          phoneIds.map((id) => sql`${id}::uuid`),
          sql`, `,
        )})`,
  );
  return written?.transactions;
}

// Heartbeats that reach one instance together go to the database as one statement (lib/heartbeats/record.ts),
// on PostgreSQL and on the embedded database alike.
describe('heartbeats batched', () => {
  it('many phones beating at once: each beat recorded with its own reading, in shared statements', async () => {
    const owner = await createTestAccount(db(), { plan: 'pro' });
    const fleet = await Promise.all(Array.from({ length: 30 }, () => addTestPhone(db(), owner, { online: true })));
    const principal: AccountPrincipal = { kind: 'account', accountId: owner.accountId, keyId: null, via: 'session' };
    const answers = await Promise.all(
      fleet.map((phone, i) =>
        recordHeartbeat(db(), principal, { phone: phone.phone, status: 'online', battery: 10 + i }),
      ),
    );
    expect(answers.map((answer) => answer.battery)).toEqual(fleet.map((_, i) => 10 + i));
    expect(answers.every((answer) => answer.status === 'online' && answer.lastHeartbeatAt instanceof Date)).toBe(true);

    const phoneIds = fleet.map((phone) => phone.phoneId);
    const recorded = await db().select().from(heartbeats).where(inArray(heartbeats.phoneId, phoneIds));
    expect(recorded).toHaveLength(30);
    const stored = await db().select().from(phones).where(inArray(phones.id, phoneIds));
    expect(new Map(stored.map((row) => [row.id, row.battery]))).toEqual(
      new Map(fleet.map((phone, i) => [phone.phoneId, 10 + i])),
    );
    // 30 beats alone would be 30 transactions.
    expect(await transactionsOf(phoneIds)).toBeLessThan(10);
  });

  it('a phone beating twice in one batch, and one coming online, are each recorded once', async () => {
    const owner = await createTestAccount(db(), { plan: 'pro' });
    const steady = await addTestPhone(db(), owner, { online: true });
    const waking = await addTestPhone(db(), owner);
    await db().update(phones).set({ status: 'offline' }).where(eq(phones.id, waking.phoneId));
    const principal: AccountPrincipal = { kind: 'account', accountId: owner.accountId, keyId: null, via: 'session' };
    const answers = await Promise.all([
      recordHeartbeat(db(), principal, { phone: steady.phone, status: 'online', battery: 50 }),
      recordHeartbeat(db(), principal, { phone: steady.phone, status: 'online', battery: 51 }),
      recordHeartbeat(db(), principal, { phone: steady.phone, status: 'online', battery: 52 }),
      recordHeartbeat(db(), principal, { phone: waking.phone, status: 'online', battery: 70 }),
    ]);
    expect(answers.map((answer) => answer.battery)).toEqual([50, 51, 52, 70]);
    const recorded = await db()
      .select()
      .from(heartbeats)
      .where(inArray(heartbeats.phoneId, [steady.phoneId, waking.phoneId]));
    expect(
      recorded
        .filter((row) => row.phoneId === steady.phoneId)
        .map((row) => row.battery)
        .sort(),
    ).toEqual([50, 51, 52]);
    const online = await db().select().from(events).where(eq(events.type, 'phone.online'));
    expect(online.filter((row) => (row.payload as { phone_id: string }).phone_id === waking.phoneId)).toHaveLength(1);
    const [wokenRow] = await db().select().from(phones).where(eq(phones.id, waking.phoneId));
    expect(wokenRow).toMatchObject({ status: 'online', battery: 70 });
  });
});

// A steady heartbeat writes status (unchanged), battery and last_heartbeat_at. When no index of
// phones covers those, PostgreSQL updates the row in place (HOT) and writes no index entries; one
// index on last_heartbeat_at made every heartbeat write an entry into each of them (migration 0015).
describe('phones, the table every heartbeat updates', () => {
  it('has no index on a column a steady heartbeat writes, and room on its pages for new versions', async () => {
    const indexes = await queryRows<{ name: string; definition: string }>(
      db(),
      sql`select indexrelid::regclass::text as name, pg_get_indexdef(indexrelid) as definition
          from pg_index where indrelid = 'phones'::regclass`,
    );
    expect(indexes.length).toBeGreaterThan(0);
    for (const index of indexes) expect(index.definition).not.toMatch(/battery|last_heartbeat_at/);
    const [table] = await queryRows<{ options: string[] | null }>(
      db(),
      sql`select reloptions as options from pg_class where oid = 'phones'::regclass`,
    );
    expect(table?.options).toContain('fillfactor=80');
  });
});

describe('an open stream’s presence tick', () => {
  it('waits STREAM_TICK_GATHER_MS for other streams’ ticks: their device checks, and their presence writes, go as one statement', async () => {
    const owner = await createTestAccount(db());
    // Online already: a tick that brings a phone online is a status change, which goes alone.
    const fleet = await Promise.all([
      addTestPhone(db(), owner, { online: true }),
      addTestPhone(db(), owner, { online: true }),
    ]);
    const devices = (await Promise.all(
      fleet.map((phone) => principalForKey(db(), phone.deviceKey)),
    )) as DevicePrincipal[];
    const phoneIds = fleet.map((phone) => phone.phoneId);
    const beats = () => db().$count(heartbeats, inArray(heartbeats.phoneId, phoneIds));
    const selects = vi.spyOn(db(), 'select');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const checks = [isLiveDevice(db(), devices[0]!.deviceId)];
      await vi.advanceTimersByTimeAsync(STREAM_TICK_GATHER_MS - 50);
      expect(selects).not.toHaveBeenCalled();
      checks.push(isLiveDevice(db(), devices[1]!.deviceId));
      await vi.advanceTimersByTimeAsync(50);
      expect(await Promise.all(checks)).toEqual([true, true]);
      expect(selects).toHaveBeenCalledTimes(1);

      const tick = (index: number) =>
        recordHeartbeat(db(), devices[index]!, { phone: fleet[index]!.phone, status: 'online' }, { tick: true });
      const writes = [tick(0)];
      await vi.advanceTimersByTimeAsync(STREAM_TICK_GATHER_MS - 50);
      expect(await beats()).toBe(0);
      writes.push(tick(1));
      await vi.advanceTimersByTimeAsync(50);
      await Promise.all(writes);
    } finally {
      vi.useRealTimers();
      selects.mockRestore();
    }
    expect(await beats()).toBe(2);
    expect(await transactionsOf(phoneIds)).toBe(1);
  });
});

// A device's beat is recorded only while the device speaks for its phone, checked by the write itself:
// a tick that passed its device check and then waited for other ticks records nothing once revoked.
describe('a revoked device’s beat', () => {
  it('is refused, and writes nothing, when the revocation comes while its tick gathers', async () => {
    const owner = await createTestAccount(db());
    const phone = await addTestPhone(db(), owner, { online: true });
    const device = (await principalForKey(db(), phone.deviceKey)) as DevicePrincipal;
    const beats = () => db().$count(heartbeats, eq(heartbeats.phoneId, phone.phoneId));
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let write: Promise<unknown> | undefined;
    try {
      write = recordHeartbeat(db(), device, { phone: phone.phone, status: 'online' }, { tick: true });
      write.catch(() => {});
      await revokePhoneDevice(db(), owner.accountId, phone.phoneId, device.deviceId);
      await vi.advanceTimersByTimeAsync(STREAM_TICK_GATHER_MS);
    } finally {
      vi.useRealTimers();
    }
    await expect(write).rejects.toMatchObject({ code: 'FORBIDDEN', detail: expect.stringMatching(/revoked/) });
    expect(await beats()).toBe(0);
    // An account key's beat for the phone is still recorded: the phone itself stays.
    const principal: AccountPrincipal = { kind: 'account', accountId: owner.accountId, keyId: null, via: 'session' };
    await recordHeartbeat(db(), principal, { phone: phone.phone, status: 'online' });
    expect(await beats()).toBe(1);
  });
});

describe.runIf(onRealPostgres())('a revoked device’s beat (Postgres)', () => {
  it('waiting on the phone row for the revocation, is re-checked against it and refused', async () => {
    const owner = await createTestAccount(db());
    const phone = await addTestPhone(db(), owner, { online: true });
    const device = (await principalForKey(db(), phone.deviceKey)) as DevicePrincipal;
    let write: Promise<unknown> | undefined;
    await db().transaction(async (tx) => {
      await revokePhoneDevice(tx, owner.accountId, phone.phoneId, device.deviceId);
      write = recordHeartbeat(db(), device, { phone: phone.phone, status: 'online' });
      write.catch(() => {});
      // The beat's statement waits on the phone row the revocation updated, then sees it committed.
      await someoneWaitsOnALock(db());
    });
    await expect(write).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(await db().$count(heartbeats, eq(heartbeats.phoneId, phone.phoneId))).toBe(0);
  });
});
