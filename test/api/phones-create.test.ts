import { count, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { phones } from '@/db/schema';
import { createPhone } from '@/lib/phones/create';
import { createTestAccount, testNumber } from '../fixtures';
import { errorCodeOf as codeOf } from '../poll';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

describe('createPhone', () => {
  it('adds a phone to the default group, normalised', async () => {
    const account = await createTestAccount(db());
    const phone = await createPhone(db(), account.accountId, { phone: ` ${testNumber()} `, label: 'desk' });
    expect(phone).toMatchObject({ groupId: account.defaultGroupId, label: 'desk', status: 'unknown', deviceId: null });
    expect(phone.phone).toMatch(/^\+1415555\d{4}$/);
  });

  it('refuses a duplicate number (409 DUPLICATE_PHONE), an unknown group and a bad number', async () => {
    const account = await createTestAccount(db(), { plan: 'pro' });
    const other = await createTestAccount(db());
    expect(await codeOf(createPhone(db(), account.accountId, { phone: account.phone }))).toBe('DUPLICATE_PHONE');
    expect(
      await codeOf(createPhone(db(), account.accountId, { phone: testNumber(), groupId: other.defaultGroupId })),
    ).toBe('GROUP_NOT_FOUND');
    expect(await codeOf(createPhone(db(), account.accountId, { phone: '+1' }))).toBe('VALIDATION_ERROR');
  });

  it('keeps the caller’s transaction usable after a duplicate', async () => {
    const account = await createTestAccount(db(), { plan: 'pro' });
    const fresh = testNumber();
    await db().transaction(async (tx) => {
      await tx.insert(phones).values({ accountId: account.accountId, groupId: account.defaultGroupId, phone: fresh });
      expect(await codeOf(createPhone(tx, account.accountId, { phone: fresh }))).toBe('DUPLICATE_PHONE');
      await createPhone(tx, account.accountId, { phone: testNumber() });
    });
  });

  it('holds the plan maximum under 20 concurrent creates', async () => {
    const account = await createTestAccount(db());
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () => createPhone(db(), account.accountId, { phone: testNumber() })),
    );
    const refused = results.filter((r) => r.status === 'rejected');
    for (const r of refused) expect((r as PromiseRejectedResult).reason.code).toBe('PLAN_LIMIT_REACHED');
    const [row] = await db().select({ n: count() }).from(phones).where(eq(phones.accountId, account.accountId));
    expect(row?.n).toBe(3);
  });
});
