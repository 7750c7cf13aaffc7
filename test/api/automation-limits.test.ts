import { and, eq } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { POST as received } from '@/app/api/v1/device/messages/received/route';
import { POST as createRule } from '@/app/api/v1/inbound-rules/route';
import { POST as tryRules } from '@/app/api/v1/inbound-rules/test/route';
import { PATCH as patchSending } from '@/app/api/v1/settings/sending/route';
import { automaticSends, messages } from '@/db/schema';
import { countryOf, toE164 } from '@/lib/phone-number';
import { onRealPostgres } from '../database';
import { balanceOf, createTestAccount, type TestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

afterEach(() => {
  vi.unstubAllEnvs();
});

/** Ten senders on international and premium-rate prefixes, as in issue 40. */
const FAR_SENDERS = [
  '+88216123456',
  '+88216123457',
  '+8823512345678',
  '+23563012345',
  '+23563012346',
  '+2348021234567',
  '+2348021234568',
  '+2348021234569',
  '+8613123456789',
  '+8613123456788',
];

const reply = (content: string) => ({ type: 'reply', content });

async function inbound(who: { deviceKey: string }, from: string, content: string) {
  const res = await call(received, {
    body: { from, content, device_message_id: crypto.randomUUID() },
    apiKey: who.deviceKey,
  });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; automation: Array<Record<string, unknown>> | null };
}

async function rule(account: TestAccount, body: Record<string, unknown>) {
  const res = await call(createRule, { body: { name: 'rule', ...body }, apiKey: account.apiKey });
  expect(res.status, res.text).toBe(201);
}

async function outbound(account: TestAccount) {
  return db()
    .select()
    .from(messages)
    .where(and(eq(messages.accountId, account.accountId), eq(messages.direction, 'outbound')));
}

async function allowCountries(account: TestAccount, countries: string[] | null) {
  const res = await call(patchSending, {
    method: 'PATCH',
    body: { allowed_countries: countries },
    apiKey: account.apiKey,
  });
  expect(res.status, res.text).toBe(200);
}

describe('the countries automatic SMS reach', () => {
  it('are the countries of the account’s phones when it lists none: ten far senders get nothing', async () => {
    expect(FAR_SENDERS.every((number) => toE164(number) === number)).toBe(true);
    const account = await createTestAccount(db(), { credits: 100 });
    expect(countryOf(account.phone)).toBe('US');
    await rule(account, { actions: [reply('Thanks, we will call you back')] });
    const entries = [];
    for (const sender of FAR_SENDERS) {
      for (let i = 0; i < 3; i += 1) entries.push((await inbound(account, sender, `hi ${i}`)).automation?.[0]);
    }
    expect(entries).toHaveLength(30);
    for (const entry of entries) expect(entry).toMatchObject({ result: 'skipped', reason: 'country_not_of_phones' });
    expect(await outbound(account)).toEqual([]);
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(100);
    // A sender in the phones' country is answered.
    expect((await inbound(account, testNumber(), 'hi')).automation?.[0]?.result).toBe('sent');
  });

  it('applies to a forward’s target, and the test endpoint foresees it', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    await rule(account, { actions: [{ type: 'forward_sms', to: '+2348021234567' }] });
    const message = await inbound(account, testNumber(), 'for the boss abroad');
    expect(message.automation).toEqual([
      expect.objectContaining({ action: 'forward_sms', result: 'skipped', reason: 'country_not_of_phones' }),
    ]);
    const preview = await call(tryRules, {
      body: { phone: account.phone, from: testNumber(), text: 'x' },
      apiKey: account.apiKey,
    });
    expect(preview.body.rules[0].actions).toEqual([
      expect.objectContaining({ would: 'skip', reason: 'country_not_of_phones' }),
    ]);
  });

  it('are the listed countries when the account lists some', async () => {
    const account = await createTestAccount(db(), { credits: 100 });
    await rule(account, { actions: [reply('Thanks')] });
    await allowCountries(account, ['TD', 'NG', 'CN']);
    const results = new Map<string, unknown>();
    for (const sender of FAR_SENDERS) {
      const entry = (await inbound(account, sender, 'hi')).automation?.[0];
      results.set(sender, entry?.result === 'sent' ? 'sent' : entry?.reason);
    }
    // +882 numbers belong to no country, so no list holds them.
    expect([...results.values()]).toEqual([
      'country_not_allowed',
      'country_not_allowed',
      'country_not_allowed',
      'sent',
      'sent',
      'sent',
      'sent',
      'sent',
      'sent',
      'sent',
    ]);
    // The list decides alone: the phones' own country is not on it.
    expect((await inbound(account, testNumber(), 'hi')).automation?.[0]).toMatchObject({
      reason: 'country_not_allowed',
    });
    await allowCountries(account, null);
    expect((await inbound(account, '+2348021234570', 'hi')).automation?.[0]).toMatchObject({
      reason: 'country_not_of_phones',
    });
  });
});

describe('the account’s hourly cap on automatic SMS', () => {
  it('skips automatic SMS past AUTO_SMS_ACCOUNT_HOURLY_LIMIT, with its own reason, until the hour passes', async () => {
    vi.stubEnv('AUTO_SMS_ACCOUNT_HOURLY_LIMIT', '5');
    const account = await createTestAccount(db(), { credits: 100 });
    await rule(account, { actions: [reply('auto')] });
    const entries = [];
    for (let i = 0; i < 7; i += 1) entries.push((await inbound(account, testNumber(), `hi ${i}`)).automation?.[0]);
    expect(entries.map((entry) => entry?.result)).toEqual([
      'sent',
      'sent',
      'sent',
      'sent',
      'sent',
      'skipped',
      'skipped',
    ]);
    expect(entries[5]).toMatchObject({ reason: 'account_limit_reached' });
    expect(await outbound(account)).toHaveLength(5);
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(95);
    const preview = await call(tryRules, {
      body: { phone: account.phone, from: testNumber(), text: 'x' },
      apiKey: account.apiKey,
    });
    expect(preview.body.rules[0].actions).toEqual([
      expect.objectContaining({ would: 'skip', reason: 'account_limit_reached' }),
    ]);
    // Another account has its own count.
    const other = await createTestAccount(db(), { credits: 10 });
    await rule(other, { actions: [reply('auto')] });
    expect((await inbound(other, testNumber(), 'hi')).automation?.[0]?.result).toBe('sent');
    // The hour passes.
    await db()
      .update(automaticSends)
      .set({ at: new Date(Date.now() - 3_700_000) })
      .where(eq(automaticSends.accountId, account.accountId));
    expect((await inbound(account, testNumber(), 'later')).automation?.[0]?.result).toBe('sent');
  });

  it(`holds when many senders' messages arrive at once${onRealPostgres() ? ' (concurrent transactions on PostgreSQL)' : ''}`, async () => {
    vi.stubEnv('AUTO_SMS_ACCOUNT_HOURLY_LIMIT', '5');
    const account = await createTestAccount(db(), { credits: 100 });
    await rule(account, { actions: [reply('auto'), { type: 'forward_sms', to: testNumber() }] });
    const all = await Promise.all(Array.from({ length: 16 }, (_, i) => inbound(account, testNumber(), `burst ${i}`)));
    const entries = all.flatMap((message) => message.automation ?? []);
    expect(entries).toHaveLength(32);
    expect(entries.filter((entry) => entry.result === 'sent')).toHaveLength(5);
    expect(entries.filter((entry) => entry.reason === 'account_limit_reached')).toHaveLength(27);
    expect(await outbound(account)).toHaveLength(5);
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(95);
  });
});
