import { and, eq } from 'drizzle-orm';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { POST as registerDevice } from '@/app/api/v1/phones/register-device/route';
import { POST as verifySim } from '@/app/api/v1/phones/verify-sim/route';
import { devices, messages, phoneGroups, phones, rateLimitHits } from '@/db/schema';
import { listDevInbox } from '@/lib/dev-inbox/store';
import { log } from '@/lib/log';
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
  vi.restoreAllMocks();
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

/** The operator's settings: its phone's number and its account's email. */
function senderIs(account: Pick<TestAccount, 'phone' | 'email'>) {
  vi.stubEnv('VERIFICATION_SENDER_PHONE', account.phone);
  vi.stubEnv('VERIFICATION_SENDER_EMAIL', account.email);
}

async function devicesFor(phoneNumber: string) {
  return db().select().from(devices).where(eq(devices.phoneNumber, phoneNumber));
}

describe('verification SMS through the gateway (VERIFICATION_SENDER_PHONE set)', () => {
  it('sends the code as a queued message from the operator phone, charged one credit', async () => {
    senderIs(operator);
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

  it("another account adding the operator's number changes nothing: the operator still sends and pays", async () => {
    const squatter = await createTestAccount(db(), { credits: 10 });
    await createPhone(db(), squatter.accountId, { phone: operator.phone });
    // Even a squatter whose phone has an activated device of its own is not the operator.
    await db()
      .update(phones)
      .set({ deviceId: squatter.deviceId })
      .where(and(eq(phones.accountId, squatter.accountId), eq(phones.phone, operator.phone)));
    vi.stubEnv('VERIFICATION_SENDER_PHONE', operator.phone);
    vi.stubEnv('VERIFICATION_SENDER_EMAIL', operator.email.toUpperCase());
    const [operatorBefore, squatterBefore] = [await balance(operator), await balance(squatter)];

    const phoneNumber = testNumber();
    expect((await register(phoneNumber)).status).toBe(201);
    expect(await messagesTo(operator.accountId, phoneNumber)).toHaveLength(1);
    expect(await messagesTo(squatter.accountId, phoneNumber)).toHaveLength(0);
    expect(await balance(operator)).toBe(operatorBefore - 1);
    expect(await balance(squatter)).toBe(squatterBefore);
  });

  it('answers 503 and logs why when VERIFICATION_SENDER_EMAIL is not set', async () => {
    // The only account with that number, its phone activated: the number alone still names no one.
    const lone = await createTestAccount(db(), { credits: 10 });
    const error = vi.spyOn(log, 'error');
    vi.stubEnv('VERIFICATION_SENDER_PHONE', lone.phone);
    vi.stubEnv('VERIFICATION_SENDER_EMAIL', '');
    const phoneNumber = testNumber();
    const res = await register(phoneNumber);
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('SERVICE_UNAVAILABLE');
    expect(res.text).not.toContain('VERIFICATION_SENDER');
    expect(await devicesFor(phoneNumber)).toEqual([]);
    expect(await balance(lone)).toBe(10);
    expect(error).toHaveBeenCalledWith(
      expect.objectContaining({
        err: expect.objectContaining({ message: expect.stringContaining('VERIFICATION_SENDER_EMAIL') }),
      }),
      'verification SMS could not be sent',
    );
  });

  it('a phone without an activated device is not the sender: 503', async () => {
    const unbound = await createTestAccount(db(), { credits: 10 });
    const number = testNumber();
    await createPhone(db(), unbound.accountId, { phone: number });
    const revoked = await createTestAccount(db(), { credits: 10 });
    await db().update(devices).set({ status: 'revoked' }).where(eq(devices.id, revoked.deviceId));

    for (const sender of [{ phone: number, email: unbound.email }, revoked]) {
      senderIs(sender);
      const phoneNumber = testNumber();
      const res = await register(phoneNumber);
      expect(res.status).toBe(503);
      expect(await devicesFor(phoneNumber)).toEqual([]);
    }
    expect(await balance(unbound)).toBe(10);
    expect(await balance(revoked)).toBe(10);
  });

  it('answers 503 and records nothing when the operator has no credits left', async () => {
    const broke = await createTestAccount(db(), { credits: 0 });
    senderIs(broke);
    const phoneNumber = testNumber();
    const res = await register(phoneNumber);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('30');
    expect(await devicesFor(phoneNumber)).toEqual([]);
    const hits = await db()
      .select()
      .from(rateLimitHits)
      .where(eq(rateLimitHits.bucket, `verify:${phoneNumber}`));
    expect(hits).toEqual([]);
  });

  it('answers 503 when no account has the sender number, or it is not a number', async () => {
    vi.stubEnv('VERIFICATION_SENDER_EMAIL', operator.email);
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
