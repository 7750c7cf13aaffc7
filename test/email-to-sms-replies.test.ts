import { and, eq } from 'drizzle-orm';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { POST as received } from '@/app/api/v1/device/messages/received/route';
import { PATCH as changeSettings, GET as readSettings } from '@/app/api/v1/settings/email-to-sms/route';
import { emailAddresses, emailOutbox, emailSmsSenders, messages } from '@/db/schema';
import { listenSmtpDoor } from '@/lib/protocols/email/server';
import { sweepRetention } from '@/lib/retention/sweep';
import { createTestAccount, type TestAccount, testNumber } from './fixtures';
import { call } from './http';
import { until } from './poll';
import { withTestDatabase } from './setup-db';

const { db } = withTestDatabase();

const DOMAIN = 'sms.example.test';
let port: number;
let stop: () => Promise<void>;

beforeAll(async () => {
  const door = await listenSmtpDoor({
    db: db(),
    port: 0,
    host: '127.0.0.1',
    domains: [DOMAIN],
    allowConfirmedSenders: false,
  });
  port = door.port;
  stop = door.stop;
});

afterAll(async () => {
  await stop();
});

beforeEach(() => {
  vi.unstubAllEnvs();
  vi.stubEnv('AUTO_REPLY_LIMIT', '100');
});

function address(number: string): string {
  return `${number.slice(1)}@${DOMAIN}`;
}

function mailer(apiKey: string) {
  return nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    ignoreTLS: true,
    auth: { user: 'apikey', pass: apiKey },
  });
}

/** An address the account added; confirmed (usable by forwards) or still pending. */
async function addAddress(account: TestAccount, confirmed: boolean): Promise<string> {
  const email = `ops-${crypto.randomUUID()}@example.org`;
  await db()
    .insert(emailAddresses)
    .values({
      accountId: account.accountId,
      email,
      confirmedAt: confirmed ? new Date() : null,
      tokenHash: crypto.randomUUID(),
      tokenExpiresAt: new Date(Date.now() + 3_600_000),
    });
  return email;
}

async function forwardReplies(account: TestAccount, on: boolean): Promise<void> {
  const res = await call(changeSettings, { body: { forward_replies: on }, apiKey: account.apiKey });
  expect(res.status, res.text).toBe(200);
  expect(res.body).toMatchObject({ forward_replies: on });
}

/** Mails `to` from `sender` (the envelope and the From header) and waits for its SMS. */
async function mailSms(account: TestAccount, sender: string, to: string): Promise<string> {
  const info = await mailer(account.apiKey).sendMail({ from: sender, to: address(to), subject: '', text: 'Door open' });
  expect(info.response).toMatch(/^250 .*Queued 1 SMS/);
  const [message] = await db()
    .select({ id: messages.id })
    .from(messages)
    .where(and(eq(messages.accountId, account.accountId), eq(messages.to, to), eq(messages.direction, 'outbound')));
  return (message as { id: string }).id;
}

/** An inbound SMS the account's phone reports: 201 the first time, 200 for the same report again. */
async function inbound(account: TestAccount, from: string, content: string, deviceMessageId = crypto.randomUUID()) {
  const res = await call(received, {
    body: { from, content, device_message_id: deviceMessageId },
    apiKey: account.deviceKey,
  });
  expect([200, 201], res.text).toContain(res.status);
  return res.body as { id: string };
}

async function outboxOf(account: TestAccount) {
  return db().select().from(emailOutbox).where(eq(emailOutbox.accountId, account.accountId));
}

/** The inbound message's automation record, once its automation ran. */
async function automationOf(account: TestAccount, id: string) {
  return until(async () => {
    const [row] = await db()
      .select({ automation: messages.automation })
      .from(messages)
      .where(and(eq(messages.accountId, account.accountId), eq(messages.id, id)));
    return row?.automation;
  });
}

describe('email to SMS: replies to the mail’s sender', () => {
  it('is off by default, and the setting changes', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const res = await call(readSettings, { apiKey: account.apiKey });
    expect(res.body).toMatchObject({ forward_replies: false });
    await forwardReplies(account, true);
    await forwardReplies(account, false);
  });

  it('records the envelope sender of each SMS a mail became', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const to = testNumber();
    const id = await mailSms(account, 'Alarms@Example.org', to);
    const rows = await db().select().from(emailSmsSenders).where(eq(emailSmsSenders.accountId, account.accountId));
    expect(rows).toEqual([expect.objectContaining({ messageId: id, sender: 'alarms@example.org' })]);
  });

  it('keeps who sent an SMS by email only for the reply window', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const old = await mailSms(account, account.email, testNumber());
    const recent = await mailSms(account, account.email, testNumber());
    await db()
      .update(emailSmsSenders)
      .set({ createdAt: new Date(Date.now() - 8 * 86_400_000) })
      .where(and(eq(emailSmsSenders.accountId, account.accountId), eq(emailSmsSenders.messageId, old)));
    const report = await sweepRetention(db());
    expect(report.email_sms_senders).toBeGreaterThanOrEqual(1);
    const kept = await db()
      .select({ messageId: emailSmsSenders.messageId })
      .from(emailSmsSenders)
      .where(eq(emailSmsSenders.accountId, account.accountId));
    expect(kept).toEqual([{ messageId: recent }]);
  });

  it('forwards a reply once to a confirmed sender, even when the phone reports it twice', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    await forwardReplies(account, true);
    const sender = await addAddress(account, true);
    const to = testNumber();
    await mailSms(account, sender, to);
    const reportId = crypto.randomUUID();
    const reply = await inbound(account, to, 'On my way', reportId);
    expect(await automationOf(account, reply.id)).toEqual([{ rule_id: null, action: 'email_reply', result: 'sent' }]);
    const again = await inbound(account, to, 'On my way', reportId);
    expect(again.id).toBe(reply.id);
    const outbox = await outboxOf(account);
    expect(outbox).toHaveLength(1);
    expect(outbox[0]).toMatchObject({ to: sender, inboundMessageId: reply.id, counterpart: to });
    expect(outbox[0]?.subject).toContain(to);
    expect(outbox[0]?.text).toMatch(/^On my way\n/);
  });

  it('forwards nothing when the account has not turned it on', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const sender = await addAddress(account, true);
    const to = testNumber();
    await mailSms(account, sender, to);
    await inbound(account, to, 'Got it');
    expect(await outboxOf(account)).toHaveLength(0);
  });

  it('forwards nothing to an address the account has not confirmed', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    await forwardReplies(account, true);
    const to = testNumber();
    const pending = await addAddress(account, false);
    await mailSms(account, pending, to);
    const first = await inbound(account, to, 'Got it');
    expect(await automationOf(account, first.id)).toEqual([
      { rule_id: null, action: 'email_reply', result: 'skipped', reason: 'email_not_confirmed' },
    ]);
    const other = testNumber();
    await mailSms(account, 'stranger@example.org', other);
    const second = await inbound(account, other, 'Got it');
    expect(await automationOf(account, second.id)).toEqual([
      { rule_id: null, action: 'email_reply', result: 'skipped', reason: 'email_not_confirmed' },
    ]);
    expect(await outboxOf(account)).toHaveLength(0);
  });

  it('forwards nothing when the number’s latest outbound message was not sent by email', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    await forwardReplies(account, true);
    const to = testNumber();
    const mailed = await mailSms(account, account.email, to);
    // Made older than a message sent afterwards by another way (here, a copy of it with no sender recorded).
    await db()
      .update(messages)
      .set({ createdAt: new Date(Date.now() - 60_000) })
      .where(and(eq(messages.accountId, account.accountId), eq(messages.id, mailed)));
    const [original] = await db()
      .select()
      .from(messages)
      .where(and(eq(messages.accountId, account.accountId), eq(messages.id, mailed)));
    const { id: _id, createdAt: _created, requestId: _request, ...rest } = original as typeof messages.$inferSelect;
    await db().insert(messages).values(rest);
    await inbound(account, to, 'Who is this?');
    expect(await outboxOf(account)).toHaveLength(0);
  });

  it('forwards nothing past the window', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    await forwardReplies(account, true);
    const to = testNumber();
    const mailed = await mailSms(account, account.email, to);
    await db()
      .update(messages)
      .set({ createdAt: new Date(Date.now() - 8 * 86_400_000) })
      .where(and(eq(messages.accountId, account.accountId), eq(messages.id, mailed)));
    await inbound(account, to, 'Late answer');
    expect(await outboxOf(account)).toHaveLength(0);
  });

  it('never forwards another account’s reply', async () => {
    const mailing = await createTestAccount(db(), { credits: 10 });
    const other = await createTestAccount(db(), { credits: 10 });
    await forwardReplies(mailing, true);
    await forwardReplies(other, true);
    const to = testNumber();
    await mailSms(mailing, mailing.email, to);
    // The other account also mails SMS (so it has senders of its own), to another number.
    await mailSms(other, other.email, testNumber());
    const reply = await inbound(other, to, 'Wrong gateway');
    const [row] = await db()
      .select({ automation: messages.automation })
      .from(messages)
      .where(and(eq(messages.accountId, other.accountId), eq(messages.id, reply.id)));
    expect(row?.automation ?? null).toBeNull();
    expect(await outboxOf(other)).toHaveLength(0);
    expect(await outboxOf(mailing)).toHaveLength(0);
    // The account that mailed still gets its own reply.
    const own = await inbound(mailing, to, 'Right gateway');
    expect(await automationOf(mailing, own.id)).toEqual([{ rule_id: null, action: 'email_reply', result: 'sent' }]);
    expect(await outboxOf(mailing)).toEqual([expect.objectContaining({ to: mailing.email })]);
  });
});
