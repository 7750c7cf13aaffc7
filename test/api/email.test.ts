import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { POST as bindConfirm } from '@/app/api/v1/auth/bind/confirm/route';
import { POST as bindRequest } from '@/app/api/v1/auth/bind/request-code/route';
import { POST as requestSignInCode } from '@/app/api/v1/auth/sign-in/request-code/route';
import { POST as registerDevice } from '@/app/api/v1/phones/register-device/route';
import { POST as verifySim } from '@/app/api/v1/phones/verify-sim/route';
import { verificationCodes } from '@/db/schema';
import { authorizeEmailCode } from '@/lib/auth/sign-in';
import { listDevInbox } from '@/lib/dev-inbox/store';
import { createTestAccount, type TestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

type ReceivedMail = { from: string; to: string[]; raw: string };

/** A real SMTP server on a free local port that keeps what it receives. */
const received: ReceivedMail[] = [];
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onData(stream, session, callback) {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      received.push({
        from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
        to: session.envelope.rcptTo.map((r) => r.address),
        raw: Buffer.concat(chunks).toString('utf8'),
      });
      callback();
    });
  },
});
let smtpUrl: string;
let account: TestAccount;

beforeAll(async () => {
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  smtpUrl = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`;
  account = await createTestAccount(db());
});
afterAll(async () => {
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});
beforeEach(() => {
  vi.unstubAllEnvs();
  vi.stubEnv('SMTP_URL', smtpUrl);
  vi.stubEnv('MAIL_FROM', 'Simgate Codes <codes@simgate.test>');
});

function mailTo(address: string): ReceivedMail | undefined {
  return received.filter((mail) => mail.to.includes(address)).at(-1);
}

function codeIn(mail: ReceivedMail | undefined): string {
  const match = mail?.raw.match(/^Subject: (\d{6}) is your Simgate/m);
  if (!match?.[1]) throw new Error('no code in the mail');
  return match[1];
}

async function verifiedDeviceKey(): Promise<string> {
  const phoneNumber = testNumber();
  const registered = await call(registerDevice, { body: { phone_number: phoneNumber } });
  const [sms] = await listDevInbox(db(), { to: phoneNumber, limit: 1 });
  const verified = await call(verifySim, { body: { device_id: registered.body.device_id, code: sms!.code } });
  return verified.body.device_key;
}

describe('email through SMTP (SMTP_URL set)', () => {
  it('sends the binding code by SMTP from MAIL_FROM, not to the dev inbox, and the code activates', async () => {
    const deviceKey = await verifiedDeviceKey();
    const email = `smtp-${crypto.randomUUID()}@example.test`;
    const res = await call(bindRequest, { body: { email }, apiKey: deviceKey });
    expect(res.status).toBe(202);
    const mail = mailTo(email);
    expect(mail).toBeDefined();
    expect(mail!.from).toBe('codes@simgate.test');
    expect(mail!.raw).toMatch(/^From: Simgate Codes <codes@simgate\.test>/m);
    expect(mail!.raw).toContain(`Your code to bind this email to your Simgate device is ${codeIn(mail)}`);
    expect(await listDevInbox(db(), { to: email, limit: 5 })).toEqual([]);

    const confirmed = await call(bindConfirm, { body: { code: codeIn(mail) }, apiKey: deviceKey });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.status).toBe('activated');
  });

  it('sends the sign-in code by SMTP, after the answer', async () => {
    const before = received.length;
    const res = await call(requestSignInCode, { body: { email: account.email } });
    expect(res.status).toBe(202);
    const newMail = () => received.slice(before).find((mail) => mail.to.includes(account.email));
    const code = await vi.waitFor(() => codeIn(newMail()), { timeout: 5_000, interval: 10 });
    expect(await authorizeEmailCode(db(), { email: account.email, code })).toMatchObject({ id: account.accountId });
  });

  it('answers 503 with Retry-After when the SMTP server cannot be reached, and keeps no code', async () => {
    const closed = new SMTPServer({ authOptional: true, disabledCommands: ['STARTTLS'], logger: false });
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    vi.stubEnv('SMTP_URL', `smtp://127.0.0.1:${port}`);

    const deviceKey = await verifiedDeviceKey();
    const email = `down-${crypto.randomUUID()}@example.test`;
    const res = await call(bindRequest, { body: { email }, apiKey: deviceKey });
    expect(res.status).toBe(503);
    expect(res.contentType).toBe('application/problem+json');
    expect(res.body.code).toBe('SERVICE_UNAVAILABLE');
    expect(res.headers.get('retry-after')).toBe('30');
    expect(await db().select().from(verificationCodes).where(eq(verificationCodes.email, email))).toEqual([]);
  });
});

describe('email without SMTP_URL', () => {
  it('goes to the dev inbox', async () => {
    vi.stubEnv('SMTP_URL', '');
    const before = received.length;
    const res = await call(requestSignInCode, { body: { email: account.email } });
    expect(res.status).toBe(202);
    const mail = await vi.waitFor(
      async () => {
        const [newest] = await listDevInbox(db(), { to: account.email, limit: 1 });
        if (!newest) throw new Error('nothing in the dev inbox yet');
        return newest;
      },
      { timeout: 5_000, interval: 10 },
    );
    expect(mail).toMatchObject({ channel: 'email', code: expect.stringMatching(/^\d{6}$/) });
    expect(received.length).toBe(before);
  });
});
