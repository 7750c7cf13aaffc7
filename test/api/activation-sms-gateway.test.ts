import { and, eq } from 'drizzle-orm';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { POST as registerDevice } from '@/app/api/v1/phones/register-device/route';
import { POST as verifySim } from '@/app/api/v1/phones/verify-sim/route';
import { devices, messages, phoneGroups, rateLimitHits } from '@/db/schema';
import { listDevInbox } from '@/lib/dev-inbox/store';
import { createPhone } from '@/lib/phones/create';
import { createTestAccount, type TestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

let operator: TestAccount;
beforeAll(async () => {
  operator = await createTestAccount(db(), { plan: 'pro', credits: 10 });
});
afterEach(() => {
  vi.unstubAllEnvs();
});

async function balance(account: TestAccount): Promise<number> {
  const [group] = await db().select().from(phoneGroups).where(eq(phoneGroups.id, account.defaultGroupId));
  return group!.balance;
}

async function messagesTo(accountId: string, to: string) {
  return db()
    .select()
    .from(messages)
    .where(and(eq(messages.accountId, accountId), eq(messages.to, to)));
}

function register(phoneNumber: string) {
  return call(registerDevice, { body: { phone_number: phoneNumber } });
}

describe('verification SMS through the gateway (VERIFICATION_SENDER_PHONE set)', () => {
  it('sends the code as a queued message from the operator phone, charged one credit', async () => {
    vi.stubEnv('VERIFICATION_SENDER_PHONE', operator.phone);
    const before = await balance(operator);
    const phoneNumber = testNumber();
    const res = await register(phoneNumber);
    expect(res.status).toBe(201);

    const [message] = await messagesTo(operator.accountId, phoneNumber);
    expect(message).toMatchObject({ direction: 'outbound', from: operator.phone, to: phoneNumber, status: 'queued' });
    expect(await balance(operator)).toBe(before - 1);
    expect(await listDevInbox(db(), { to: phoneNumber, limit: 5 })).toEqual([]);

    const code = message!.content.match(/\b(\d{6})\b/)?.[1];
    const verified = await call(verifySim, { body: { device_id: res.body.device_id, code } });
    expect(verified.status).toBe(200);
  });

  it('needs VERIFICATION_SENDER_EMAIL when several accounts have the sender number', async () => {
    const other = await createTestAccount(db());
    await createPhone(db(), other.accountId, { phone: operator.phone });
    vi.stubEnv('VERIFICATION_SENDER_PHONE', operator.phone);

    const phoneNumber = testNumber();
    const ambiguous = await register(phoneNumber);
    expect(ambiguous.status).toBe(503);
    expect(ambiguous.body.code).toBe('SERVICE_UNAVAILABLE');
    expect(await db().select().from(devices).where(eq(devices.phoneNumber, phoneNumber))).toEqual([]);

    vi.stubEnv('VERIFICATION_SENDER_EMAIL', operator.email.toUpperCase());
    const picked = await register(phoneNumber);
    expect(picked.status).toBe(201);
    expect(await messagesTo(operator.accountId, phoneNumber)).toHaveLength(1);
    expect(await messagesTo(other.accountId, phoneNumber)).toHaveLength(0);
  });

  it('answers 503 and records nothing when the operator has no credits left', async () => {
    const broke = await createTestAccount(db(), { credits: 0 });
    vi.stubEnv('VERIFICATION_SENDER_PHONE', broke.phone);
    const phoneNumber = testNumber();
    const res = await register(phoneNumber);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('30');
    expect(await db().select().from(devices).where(eq(devices.phoneNumber, phoneNumber))).toEqual([]);
    const hits = await db()
      .select()
      .from(rateLimitHits)
      .where(eq(rateLimitHits.bucket, `verify:${phoneNumber}`));
    expect(hits).toEqual([]);
  });

  it('answers 503 when no account has the sender number, or it is not a number', async () => {
    for (const sender of [testNumber(), 'not-a-number']) {
      vi.stubEnv('VERIFICATION_SENDER_PHONE', sender);
      const res = await register(testNumber());
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('SERVICE_UNAVAILABLE');
      expect(res.text).not.toContain(sender);
    }
  });

  it('falls back to the dev inbox when VERIFICATION_SENDER_PHONE is empty', async () => {
    vi.stubEnv('VERIFICATION_SENDER_PHONE', '');
    const phoneNumber = testNumber();
    expect((await register(phoneNumber)).status).toBe(201);
    const [sms] = await listDevInbox(db(), { to: phoneNumber, limit: 1 });
    expect(sms).toMatchObject({ channel: 'sms', code: expect.stringMatching(/^\d{6}$/) });
    expect(await messagesTo(operator.accountId, phoneNumber)).toEqual([]);
  });
});
