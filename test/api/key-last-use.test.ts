import { eq, sql } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import { POST as claim } from '@/app/api/v1/device/outbox/claim/route';
import { GET as listPhones } from '@/app/api/v1/phones/route';
import { apiKeys, devices } from '@/db/schema';
import { flushLastUsed } from '@/lib/auth/key-lookup';
import { onRealPostgres } from '../database';
import { createTestAccount } from '../fixtures';
import { call } from '../http';
import { latch } from '../latch';
import { captureLogs } from '../logs';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();
const logs = captureLogs();

describe('recording when a key was last used', () => {
  // Two connections are needed: one holds the key's row while the request's write comes in.
  it.runIf(onRealPostgres())(
    'gives up at once behind a held row lock, logged at debug, and leaves the request unaffected',
    async () => {
      const owner = await createTestAccount(db());
      const { reached: released, reach: release } = latch();
      const { reached: isLocked, reach: locked } = latch();
      const holder = db().transaction(async (tx) => {
        await tx.execute(sql`select id from api_keys where id = ${owner.apiKeyId} for update`);
        locked();
        await released;
      });
      try {
        await isLocked;
        expect((await call(listPhones, { apiKey: owner.apiKey })).status).toBe(200);
        await vi.waitFor(
          () =>
            expect(logs.entries()).toContainEqual(
              expect.objectContaining({ level: 20, msg: 'key last use not recorded: its rows were busy', keys: 1 }),
            ),
          { timeout: 20_000, interval: 20 },
        );
      } finally {
        release();
        await holder;
      }
      const [row] = await db()
        .select({ lastUsedAt: apiKeys.lastUsedAt })
        .from(apiKeys)
        .where(eq(apiKeys.id, owner.apiKeyId));
      expect(row?.lastUsedAt).toBeNull();
      expect(logs.entries().filter((entry) => Number(entry.level) >= 40)).toEqual([]);
    },
  );

  it('writes what it gathered at once when flushed (as at shutdown), an API key and a device both', async () => {
    const owner = await createTestAccount(db());
    expect((await call(listPhones, { apiKey: owner.apiKey })).status).toBe(200);
    expect((await call(claim, { body: { limit: 1 }, apiKey: owner.deviceKey })).status).toBe(200);
    const before = Date.now();
    await flushLastUsed();
    // No wait for the gathering window: the rows are written when the flush returns.
    expect(Date.now() - before).toBeLessThan(10_000);
    const [key] = await db().select({ at: apiKeys.lastUsedAt }).from(apiKeys).where(eq(apiKeys.id, owner.apiKeyId));
    const [device] = await db().select({ at: devices.lastUsedAt }).from(devices).where(eq(devices.id, owner.deviceId));
    expect(key?.at).toBeInstanceOf(Date);
    expect(device?.at).toBeInstanceOf(Date);
    expect(logs.entries().filter((entry) => Number(entry.level) >= 40)).toEqual([]);
  });
});
