import { and, eq } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GET as getPhone } from '@/app/api/v1/phones/[id]/route';
import { POST as simCheck } from '@/app/api/v1/phones/[id]/sim-check/route';
import { messages, phones } from '@/db/schema';
import { addTestPhone, createTestAccount, type TestAccount } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';
import { codeIn, type PairedApp, pairApp, pairVerifiedApp, pullAs, signedCallback } from '../smsgate-app';

process.env.APP_SECRET ??= 'test-app-secret-for-webhooks-0123456789abcdef';

const { db } = withTestDatabase();

afterEach(() => {
  vi.unstubAllEnvs();
});

async function simVerificationOf(account: TestAccount, phoneId: string): Promise<string> {
  return (await call(getPhone, { params: { id: phoneId }, apiKey: account.apiKey })).body.sim_verification;
}

/** The app reports an SMS received from `sender`, as the real app does for every SMS on the SIM. */
function receivedBy(app: PairedApp, sender: string, text: string) {
  return signedCallback(app, 'sms:received', {
    messageId: `in-${crypto.randomUUID()}`,
    message: text,
    sender,
    receivedAt: new Date().toISOString(),
  });
}

/** A second phone of the account, paired with the app: its check starts at once. */
async function pairSecondPhone(account: TestAccount): Promise<{ phoneId: string; app: PairedApp }> {
  const second = await addTestPhone(db(), account);
  const app = await pairApp(account, second.phoneId, second.phone);
  return { phoneId: second.phoneId, app };
}

describe('the SIM check from another verified phone of the account', () => {
  it('is queued on the verified phone, never handed to the phone being checked, and passes when it arrives from there', async () => {
    const account = await createTestAccount(db());
    const first = await pairVerifiedApp(account);
    const { phoneId, app } = await pairSecondPhone(account);
    expect(await simVerificationOf(account, phoneId)).toBe('pending');

    // The phone being checked pulls nothing with a code in it.
    const own = await pullAs(app);
    expect(own.filter((m) => /\d{6}/.test(m.textMessage.text))).toEqual([]);
    // The verified phone is handed the check, addressed to the new phone.
    const check = (await pullAs(first)).find((m) => m.phoneNumbers.includes(app.phone));
    expect(check, 'the verified phone was not handed the check').toBeDefined();
    const code = codeIn(check!.textMessage.text);

    // A loopback with the code (as an app that read it could forge) proves nothing here.
    expect((await receivedBy(app, app.phone, check!.textMessage.text)).status).toBe(200);
    expect(await simVerificationOf(account, phoneId)).toBe('pending');
    // The SMS arriving from the verified phone's number does.
    expect((await receivedBy(app, first.phone, `Simgate SIM check: ${code}.`)).status).toBe(200);
    expect(await simVerificationOf(account, phoneId)).toBe('verified');
    const [sent] = await db()
      .select()
      .from(messages)
      .where(and(eq(messages.id, check!.id)));
    expect(sent?.status).toBe('delivered');
  });

  it('the code texted from the other phone may also be typed in the dashboard', async () => {
    const account = await createTestAccount(db());
    const first = await pairVerifiedApp(account);
    const { phoneId, app } = await pairSecondPhone(account);
    const check = (await pullAs(first)).find((m) => m.phoneNumbers.includes(app.phone));
    const res = await call(simCheck, {
      params: { id: phoneId },
      body: { code: codeIn(check!.textMessage.text) },
      apiKey: account.apiKey,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.sim_verification).toBe('verified');
  });

  it('without another verified phone, the check stays a loopback on the phone itself', async () => {
    const account = await createTestAccount(db());
    const app = await pairApp(account);
    const check = (await pullAs(app)).find((m) => m.phoneNumbers.includes(app.phone));
    expect(check).toBeDefined();
    const [row] = await db().select().from(phones).where(eq(phones.id, account.phoneId));
    expect(row?.simCheckSender).toBeNull();
  });
});

describe('the SIM check from the operator’s sender (VERIFICATION_SENDER_PHONE)', () => {
  it('texts the code from the operator’s phone, hands the paired phone nothing, and passes on that SMS', async () => {
    const operator = await createTestAccount(db(), { credits: 10 });
    vi.stubEnv('VERIFICATION_SENDER_PHONE', operator.phone);
    vi.stubEnv('VERIFICATION_SENDER_EMAIL', operator.email);
    const account = await createTestAccount(db());
    const app = await pairApp(account);
    expect((await pullAs(app)).filter((m) => /\d{6}/.test(m.textMessage.text))).toEqual([]);

    const [sms] = await db()
      .select()
      .from(messages)
      .where(and(eq(messages.accountId, operator.accountId), eq(messages.to, app.phone)));
    expect(sms).toMatchObject({ from: operator.phone, status: 'queued' });
    const code = codeIn(sms!.content);
    // Forged loopback with the right code: refused.
    expect((await receivedBy(app, app.phone, `Simgate SIM check: ${code}.`)).status).toBe(200);
    expect(await simVerificationOf(account, account.phoneId)).toBe('pending');
    expect((await receivedBy(app, operator.phone, sms!.content)).status).toBe(200);
    expect(await simVerificationOf(account, account.phoneId)).toBe('verified');
  });

  it('the operator pairing its own sender phone checks it by loopback', async () => {
    const operator = await createTestAccount(db(), { credits: 10 });
    vi.stubEnv('VERIFICATION_SENDER_PHONE', operator.phone);
    vi.stubEnv('VERIFICATION_SENDER_EMAIL', operator.email);
    const app = await pairApp(operator);
    expect((await pullAs(app)).find((m) => m.phoneNumbers.includes(operator.phone))).toBeDefined();
  });
});
