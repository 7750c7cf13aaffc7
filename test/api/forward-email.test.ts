import type { AddressInfo } from 'node:net';
import { and, eq } from 'drizzle-orm';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { POST as received } from '@/app/api/v1/device/messages/received/route';
import { GET as readAddress, DELETE as removeAddress } from '@/app/api/v1/email-addresses/[id]/route';
import { POST as confirmAddress } from '@/app/api/v1/email-addresses/confirm/route';
import { POST as addAddress, GET as listAddresses } from '@/app/api/v1/email-addresses/route';
import { PATCH as patchRule } from '@/app/api/v1/inbound-rules/[id]/route';
import { POST as createRule } from '@/app/api/v1/inbound-rules/route';
import { GET as listPhones } from '@/app/api/v1/phones/route';
import { auditLog, emailAddresses, emailOutbox } from '@/db/schema';
import { startEmailWork } from '@/lib/email/background';
import { OUTBOX_RETENTION_DAYS, pruneEmailOutbox, runEmailBatch } from '@/lib/email/outbox';
import { describeAuthCases } from '../auth-cases';
import { createTestAccount, sharedTestAccount, type TestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { until } from '../poll';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();
const { fixture } = sharedTestAccount(db);

type ReceivedMail = { to: string[]; raw: string };

/**
 * A real SMTP server on a free local port. While `hold` is set, it takes each message and answers
 * only once the test releases it: an SMTP server as slow as the test wants.
 */
const mails: ReceivedMail[] = [];
let hold: { released: Promise<void>; release: () => void; waiting: number } | undefined;
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onData(stream, session, callback) {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', async () => {
      if (hold) {
        hold.waiting += 1;
        await hold.released;
      }
      mails.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
      callback();
    });
  },
});

function holdSmtp() {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  hold = { released, release, waiting: 0 };
  return hold;
}

let smtpUrl: string;
beforeAll(async () => {
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  smtpUrl = `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  hold?.release();
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
});
beforeEach(() => {
  vi.unstubAllEnvs();
  vi.stubEnv('SMTP_URL', smtpUrl);
  vi.stubEnv('AUTO_REPLY_LIMIT', '100');
  hold = undefined;
});

const mailsTo = (address: string) => mails.filter((mail) => mail.to.includes(address));

async function inbound(account: TestAccount, from: string, content: string) {
  const res = await call(received, {
    body: { from, content, device_message_id: crypto.randomUUID() },
    apiKey: account.deviceKey,
  });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; automation: Array<Record<string, unknown>> | null };
}

function forwardRule(account: TestAccount, to: string, extra: Record<string, unknown>[] = []) {
  return call(createRule, {
    body: { name: `forward ${crypto.randomUUID()}`, actions: [...extra, { type: 'forward_email', to }] },
    apiKey: account.apiKey,
  });
}

async function outboxOf(account: TestAccount) {
  return db().select().from(emailOutbox).where(eq(emailOutbox.accountId, account.accountId));
}

/** The mail's text, quoted-printable decoded, with plain line ends. */
function bodyText(mail: ReceivedMail): string {
  return mail.raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_all, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    .replace(/\r\n/g, '\n');
}

/** Adds an address and answers the token of the link emailed to it. */
async function addAndCaptureToken(account: TestAccount, email: string): Promise<string> {
  const before = mailsTo(email).length;
  const added = await call(addAddress, { body: { email }, apiKey: account.apiKey });
  expect(added.status, added.text).toBe(201);
  const mail = await until(() => mailsTo(email)[before]);
  const link = /^https?:\/\/\S+\/confirm-email\?token=(\S+)$/m.exec(bodyText(mail));
  expect(link, mail.raw).not.toBeNull();
  return link![1]!;
}

describeAuthCases('GET /api/v1/email-addresses', { handler: listAddresses, request: {}, accepts: 'account', fixture });
describeAuthCases('POST /api/v1/email-addresses', {
  handler: addAddress,
  request: () => ({ body: { email: `auth-${crypto.randomUUID()}@example.test` } }),
  accepts: 'account',
  fixture,
});

describe('forward_email is sent after the commit, from the outbox', () => {
  it('a slow SMTP server holds neither the inbound request nor a transaction: the mail goes out later', async () => {
    const account = await createTestAccount(db());
    const other = await createTestAccount(db());
    expect((await forwardRule(account, account.email)).status).toBe(201);
    const smtpHold = holdSmtp();

    // The inbound call answers while the SMTP server has not answered anything.
    const message = await Promise.race([
      inbound(account, testNumber(), 'Is the order ready?'),
      until(() => smtpHold.waiting > 0, { timeoutMs: 60_000 }).then(() => {
        throw new Error('the inbound request talked to the SMTP server');
      }),
    ]);
    expect(message.automation).toEqual([expect.objectContaining({ action: 'forward_email', result: 'sent' })]);
    expect(await outboxOf(account)).toEqual([expect.objectContaining({ status: 'pending', to: account.email })]);
    expect(mailsTo(account.email)).toEqual([]);

    // The drain talks to the stalled server holding no transaction: other work goes on meanwhile.
    const draining = runEmailBatch(db());
    await until(() => smtpHold.waiting > 0);
    const phones = await call(listPhones, { apiKey: other.apiKey });
    expect(phones.status).toBe(200);
    expect(await outboxOf(account)).toEqual([expect.objectContaining({ status: 'pending' })]);

    smtpHold.release();
    expect(await draining).toEqual(['sent']);
    expect(mailsTo(account.email)).toEqual([
      expect.objectContaining({ raw: expect.stringContaining('Is the order ready?') }),
    ]);
    expect(await outboxOf(account)).toEqual([
      expect.objectContaining({ status: 'sent', attemptCount: 1, sentAt: expect.any(Date), lastError: null }),
    ]);
  });

  it('the background work sends a queued forward without being asked (NOTIFY at commit, or its poll)', async () => {
    const account = await createTestAccount(db());
    await forwardRule(account, account.email);
    const stop = await startEmailWork();
    try {
      await inbound(account, testNumber(), 'background please');
      const mail = await until(() => mailsTo(account.email).find((m) => m.raw.includes('background please')));
      expect(mail.raw).toMatch(/^Subject: SMS from \+\d+ to \+\d+/m);
    } finally {
      await stop();
    }
    expect(await outboxOf(account)).toEqual([expect.objectContaining({ status: 'sent' })]);
  });

  it('retries a refused send with backoff, gives up on a permanent refusal, and prunes it after a week', async () => {
    const account = await createTestAccount(db());
    await forwardRule(account, account.email);
    const closed = new SMTPServer({ authOptional: true, disabledCommands: ['STARTTLS'], logger: false });
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.server.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    vi.stubEnv('SMTP_URL', `smtp://127.0.0.1:${port}`);

    await inbound(account, testNumber(), 'down for now');
    expect(await runEmailBatch(db())).toEqual(['retry']);
    const [row] = await outboxOf(account);
    expect(row).toMatchObject({ status: 'pending', attemptCount: 1, lastError: expect.any(String) });
    expect(row!.nextAttemptAt.getTime()).toBeGreaterThan(Date.now() + 20_000);
    expect(await runEmailBatch(db())).toEqual([]);

    const refusing = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onRcptTo(_address, _session, callback) {
        callback(Object.assign(new Error('no such mailbox'), { responseCode: 550 }));
      },
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    try {
      vi.stubEnv('SMTP_URL', `smtp://127.0.0.1:${(refusing.server.address() as AddressInfo).port}`);
      await db().update(emailOutbox).set({ nextAttemptAt: new Date() }).where(eq(emailOutbox.id, row!.id));
      expect(await runEmailBatch(db())).toEqual(['failed']);
    } finally {
      await new Promise<void>((resolve) => refusing.close(() => resolve()));
    }
    expect(await outboxOf(account)).toEqual([
      expect.objectContaining({ status: 'failed', attemptCount: 2, lastError: expect.stringContaining('550') }),
    ]);

    expect(await pruneEmailOutbox(db())).toBe(0);
    await db()
      .update(emailOutbox)
      .set({ createdAt: new Date(Date.now() - (OUTBOX_RETENTION_DAYS + 1) * 86_400_000) })
      .where(eq(emailOutbox.id, row!.id));
    expect(await pruneEmailOutbox(db())).toBe(1);
    expect(await outboxOf(account)).toEqual([]);
  });
});

describe('forwarding only to confirmed addresses', () => {
  it('refuses a rule forwarding to an unconfirmed address with 400 naming the action', async () => {
    const account = await createTestAccount(db());
    const stranger = `stranger-${crypto.randomUUID()}@example.test`;
    const res = await forwardRule(account, stranger, [{ type: 'reply', content: 'hi' }]);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.errors).toEqual([
      { path: 'actions.1.to', message: expect.stringContaining('POST /api/v1/email-addresses') },
    ]);

    const ok = await forwardRule(account, account.email.toUpperCase());
    expect(ok.status).toBe(201);
    const patched = await call(patchRule, {
      method: 'PATCH',
      params: { id: ok.body.id },
      body: { actions: [{ type: 'forward_email', to: stranger }] },
      apiKey: account.apiKey,
    });
    expect(patched.status).toBe(400);
    expect(patched.body.errors[0].path).toBe('actions.0.to');
  });

  it('add → link emailed → confirm → rule accepted → forward delivered; the link works once per address', async () => {
    const account = await createTestAccount(db());
    const desk = `desk-${crypto.randomUUID()}@example.test`;
    const token = await addAndCaptureToken(account, desk);
    const [pending] = (await call(listAddresses, { apiKey: account.apiKey })).body.data;
    expect(pending).toMatchObject({ email: desk, status: 'pending', confirmation_expires_at: expect.any(String) });
    expect((await forwardRule(account, desk)).status).toBe(400);

    const confirmed = await call(confirmAddress, { body: { token } });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body).toEqual({ email: desk, status: 'confirmed' });
    expect((await call(confirmAddress, { body: { token } })).body).toEqual({ email: desk, status: 'confirmed' });
    const list = await call(listAddresses, { apiKey: account.apiKey });
    expect(list.body).toEqual({
      account_email: account.email,
      data: [expect.objectContaining({ email: desk, status: 'confirmed', confirmation_expires_at: null })],
    });

    expect((await forwardRule(account, desk)).status).toBe(201);
    await inbound(account, testNumber(), 'for the desk');
    expect(await runEmailBatch(db())).toEqual(['sent']);
    expect(mailsTo(desk).filter((m) => m.raw.includes('for the desk'))).toHaveLength(1);

    const actions = await db()
      .select({ action: auditLog.action })
      .from(auditLog)
      .where(and(eq(auditLog.accountId, account.accountId), eq(auditLog.target, pending.id)));
    expect(actions.map((a) => a.action).sort()).toEqual(['email_address.added', 'email_address.confirmed']);
  });

  it('an unknown token is 404, an expired link 410 CODE_EXPIRED, and adding again sends a fresh link', async () => {
    const account = await createTestAccount(db());
    const late = `late-${crypto.randomUUID()}@example.test`;
    expect((await call(confirmAddress, { body: { token: 'not-a-token' } })).status).toBe(404);
    const oldToken = await addAndCaptureToken(account, late);
    await db()
      .update(emailAddresses)
      .set({ tokenExpiresAt: new Date(Date.now() - 1000) })
      .where(eq(emailAddresses.email, late));
    const expired = await call(confirmAddress, { body: { token: oldToken } });
    expect(expired.status).toBe(410);
    expect(expired.body.code).toBe('CODE_EXPIRED');

    const before = mailsTo(late).length;
    const again = await call(addAddress, { body: { email: late }, apiKey: account.apiKey });
    expect(again.status).toBe(200);
    const mail = await until(() => mailsTo(late)[before]);
    const newToken = /confirm-email\?token=(\S+)/.exec(bodyText(mail))![1]!;
    expect(newToken).not.toBe(oldToken);
    expect((await call(confirmAddress, { body: { token: oldToken } })).status).toBe(404);
    expect((await call(confirmAddress, { body: { token: newToken } })).status).toBe(200);
  });

  it('a stored rule whose address was removed skips the forward and says why', async () => {
    const account = await createTestAccount(db());
    const gone = `gone-${crypto.randomUUID()}@example.test`;
    await call(confirmAddress, { body: { token: await addAndCaptureToken(account, gone) } });
    expect((await forwardRule(account, gone)).status).toBe(201);
    const [address] = (await call(listAddresses, { apiKey: account.apiKey })).body.data;
    expect(
      (await call(removeAddress, { method: 'DELETE', params: { id: address.id }, apiKey: account.apiKey })).status,
    ).toBe(204);

    const message = await inbound(account, testNumber(), 'anyone?');
    expect(message.automation).toEqual([
      expect.objectContaining({ action: 'forward_email', result: 'skipped', reason: 'email_not_confirmed' }),
    ]);
    expect(await outboxOf(account)).toEqual([]);
  });

  it('another account cannot see, delete or forward to the first account’s addresses (404, 400)', async () => {
    const owner = await createTestAccount(db());
    const intruder = await createTestAccount(db());
    const mine = `mine-${crypto.randomUUID()}@example.test`;
    await call(confirmAddress, { body: { token: await addAndCaptureToken(owner, mine) } });
    const [address] = (await call(listAddresses, { apiKey: owner.apiKey })).body.data;

    expect((await call(listAddresses, { apiKey: intruder.apiKey })).body.data).toEqual([]);
    expect((await call(readAddress, { params: { id: address.id }, apiKey: intruder.apiKey })).status).toBe(404);
    expect(
      (await call(removeAddress, { method: 'DELETE', params: { id: address.id }, apiKey: intruder.apiKey })).status,
    ).toBe(404);
    expect((await forwardRule(intruder, mine)).status).toBe(400);
    expect((await forwardRule(intruder, owner.email)).status).toBe(400);
    expect((await call(readAddress, { params: { id: address.id }, apiKey: owner.apiKey })).body.status).toBe(
      'confirmed',
    );
  });
});

describe('forward limits', () => {
  it('past AUTO_EMAIL_ACCOUNT_HOURLY_LIMIT forwards are skipped with a reason, even when concurrent', async () => {
    vi.stubEnv('AUTO_EMAIL_ACCOUNT_HOURLY_LIMIT', '2');
    const account = await createTestAccount(db());
    await forwardRule(account, account.email);
    const results = await Promise.all(Array.from({ length: 5 }, () => inbound(account, testNumber(), 'flood')));
    const entries = results.flatMap((message) => message.automation ?? []);
    expect(entries.filter((entry) => entry.result === 'sent')).toHaveLength(2);
    expect(entries.filter((entry) => entry.reason === 'email_limit_reached')).toHaveLength(3);
    expect(await outboxOf(account)).toHaveLength(2);
  });

  it('forwards count in the per-number AUTO_REPLY_LIMIT together with automatic SMS', async () => {
    vi.stubEnv('AUTO_REPLY_LIMIT', '3');
    const account = await createTestAccount(db(), { credits: 10 });
    await forwardRule(account, account.email, [{ type: 'reply', content: 'Thanks' }]);
    const sender = testNumber();
    const first = await inbound(account, sender, 'one');
    expect(first.automation?.map((entry) => entry.result)).toEqual(['sent', 'sent']);
    const second = await inbound(account, sender, 'two');
    expect(second.automation).toEqual([
      expect.objectContaining({ action: 'reply', result: 'sent' }),
      expect.objectContaining({ action: 'forward_email', result: 'skipped', reason: 'limit_reached' }),
    ]);
    const third = await inbound(account, sender, 'three');
    expect(third.automation?.map((entry) => entry.reason)).toEqual(['limit_reached', 'limit_reached']);
    // Another number has its own count.
    expect((await inbound(account, testNumber(), 'four')).automation?.map((entry) => entry.result)).toEqual([
      'sent',
      'sent',
    ]);
  });
});
