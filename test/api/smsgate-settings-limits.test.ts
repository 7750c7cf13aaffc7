import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import * as settingsRoute from '@/app/api/3rdparty/v1/settings/route';
import { PATCH as updatePhone } from '@/app/api/v1/phones/[id]/route';
import { phones } from '@/db/schema';
import { addTestPhone, createTestAccount, type TestAccount } from '../fixtures';
import { type CallOptions, call } from '../http';
import { withTestDatabase } from '../setup-db';

process.env.APP_SECRET ??= 'test-app-secret-for-webhooks-0123456789abcdef';

const { db } = withTestDatabase();

/** Calls a route of the integrator surface as SMSGate's clients do: Basic with the account key. */
function as(account: TestAccount, handler: Parameters<typeof call>[0], options: CallOptions = {}) {
  const basic = `Basic ${Buffer.from(`anyone:${account.apiKey}`).toString('base64')}`;
  return call(handler, { ...options, headers: { authorization: basic, ...options.headers } });
}

function putLimit(account: TestAccount, messages: Record<string, unknown>) {
  return as(account, settingsRoute.PUT, { method: 'PUT', body: { messages } });
}

async function capsOf(accountId: string) {
  return db()
    .select({ hourly: phones.hourlyCap, daily: phones.dailyCap, perMinute: phones.messagesPerMinute })
    .from(phones)
    .where(eq(phones.accountId, accountId));
}

describe('the SMSGate settings’ limit', () => {
  it('PerHour and PerDay set every phone’s hourly_cap or daily_cap, and Disabled clears both', async () => {
    const account = await createTestAccount(db());
    await addTestPhone(db(), account);

    const hourly = await putLimit(account, { limit_period: 'PerHour', limit_value: 30 });
    expect(hourly.status, hourly.text).toBe(200);
    expect(hourly.body.messages).toMatchObject({ limit_period: 'PerHour', limit_value: 30 });
    expect(await capsOf(account.accountId)).toEqual([
      { hourly: 30, daily: null, perMinute: 10 },
      { hourly: 30, daily: null, perMinute: 10 },
    ]);

    const daily = await putLimit(account, { limit_period: 'PerDay', limit_value: 500 });
    expect(daily.body.messages).toMatchObject({ limit_period: 'PerDay', limit_value: 500 });
    expect(await capsOf(account.accountId)).toEqual([
      { hourly: null, daily: 500, perMinute: 10 },
      { hourly: null, daily: 500, perMinute: 10 },
    ]);

    const off = await putLimit(account, { limit_period: 'Disabled', limit_value: 500 });
    expect(off.status).toBe(200);
    expect(off.body.messages.limit_period).toBe('Disabled');
    expect(off.body.messages.limit_value).toBeUndefined();
    expect((await capsOf(account.accountId)).every((row) => row.hourly === null && row.daily === null)).toBe(true);
  });

  it('reads the limit back from the phones while they agree on it', async () => {
    const account = await createTestAccount(db());
    const other = await addTestPhone(db(), account);
    await putLimit(account, { limit_period: 'PerHour', limit_value: 30 });
    for (const id of [account.phoneId, other.phoneId]) {
      const res = await call(updatePhone, {
        method: 'PATCH',
        params: { id },
        body: { hourly_cap: null, daily_cap: 200 },
        apiKey: account.apiKey,
      });
      expect(res.status).toBe(200);
    }
    const read = await as(account, settingsRoute.GET);
    expect(read.status).toBe(200);
    expect(read.body.messages).toMatchObject({ limit_period: 'PerDay', limit_value: 200 });

    // Phones that differ leave the stored limit as it was.
    await call(updatePhone, {
      method: 'PATCH',
      params: { id: other.phoneId },
      body: { daily_cap: 300 },
      apiKey: account.apiKey,
    });
    const mixed = await as(account, settingsRoute.GET);
    expect(mixed.body.messages).toMatchObject({ limit_period: 'PerHour', limit_value: 30 });
  });

  it('answers 400 for a PerHour limit past what hourly_cap takes, changing nothing', async () => {
    const account = await createTestAccount(db());
    const res = await putLimit(account, { limit_period: 'PerHour', limit_value: 100_001 });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain('messages.limit_value');
    expect(await capsOf(account.accountId)).toEqual([{ hourly: null, daily: null, perMinute: 10 }]);
  });
});
