import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { GET as listPhones } from '@/app/api/v1/phones/route';
import { openPostgres } from '@/db/client';
import { apiKeys } from '@/db/schema';
import { keysChanged } from '@/lib/auth/key-lookup';
import { onRealPostgres } from '../database';
import { createTestAccount } from '../fixtures';
import { call } from '../http';
import { until } from '../poll';
import { withTestDatabase } from '../setup-db';

const { db, handle } = withTestDatabase();

describe('key revocations reach every instance', () => {
  it.runIf(onRealPostgres())(
    'a key revoked through another instance’s connection stops working here within a second',
    async () => {
      const account = await createTestAccount(db());
      // This instance caches the key as live.
      expect((await call(listPhones, { apiKey: account.apiKey })).status).toBe(200);
      const url = new URL(process.env.TEST_DATABASE_URL!);
      url.pathname = `/${handle().name}`;
      const otherInstance = openPostgres(url.toString(), { max: 2 });
      try {
        // The other instance revokes it; nothing clears this instance's cache but the notification.
        await otherInstance.db.transaction(async (tx) => {
          await tx.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, account.apiKeyId));
          await keysChanged(tx);
        });
        await until(async () => (await call(listPhones, { apiKey: account.apiKey })).status === 401, {
          timeoutMs: 1000,
        });
      } finally {
        await otherInstance.close();
      }
    },
  );

  it('the cache answers from memory until a change is announced (KEY_CACHE_TTL_MS otherwise)', async () => {
    const account = await createTestAccount(db());
    expect((await call(listPhones, { apiKey: account.apiKey })).status).toBe(200);
    // A revocation written without the announcement is not seen before the cache entry expires…
    await db().update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, account.apiKeyId));
    expect((await call(listPhones, { apiKey: account.apiKey })).status).toBe(200);
    // …the announcement clears it at once.
    await db().transaction((tx) => keysChanged(tx));
    await until(async () => (await call(listPhones, { apiKey: account.apiKey })).status === 401, { timeoutMs: 1000 });
  });
});
