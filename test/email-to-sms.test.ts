import { execFile } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { and, count, eq } from 'drizzle-orm';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POST as addOptOut } from '@/app/api/v1/opt-outs/route';
import { PATCH as changeSettings, GET as readSettings } from '@/app/api/v1/settings/email-to-sms/route';
import { apiKeys, messages, phoneGroups } from '@/db/schema';
import { generateKey } from '@/lib/auth/keys';
import { metrics } from '@/lib/metrics/registry';
import { AUTH_FAILURES_ALLOWED, listenSmtpDoor } from '@/lib/protocols/email/server';
import { createTestAccount, type TestAccount, testNumber } from './fixtures';
import { createTestCertificates } from './fixtures/tls/receiver';
import { call } from './http';
import { withTestDatabase } from './setup-db';

const { db } = withTestDatabase();
const run = promisify(execFile);

const DOMAIN = 'sms.example.test';
let port: number;
let confirmedPort: number;
let tlsPort: number;
const stops: Array<() => Promise<void>> = [];

beforeAll(async () => {
  const base = { db: db(), port: 0, host: '0.0.0.0', domains: [DOMAIN] };
  const plain = await listenSmtpDoor({ ...base, allowConfirmedSenders: false });
  const confirmed = await listenSmtpDoor({ ...base, allowConfirmedSenders: true });
  const certs = createTestCertificates();
  const tls = { cert: path.join(certs.dir, 'server.pem'), key: path.join(certs.dir, 'server.key') };
  const secured = await listenSmtpDoor({ ...base, allowConfirmedSenders: false, tls });
  port = plain.port;
  confirmedPort = confirmed.port;
  tlsPort = secured.port;
  stops.push(plain.stop, confirmed.stop, secured.stop);
});

afterAll(async () => {
  for (const stop of stops) await stop();
});

/** A number as its address: `14155550123@sms.example.test`, with a sending phone as the tag when given. */
function address(number: string, from?: string): string {
  return `${number.slice(1)}${from ? from : ''}@${DOMAIN}`;
}

async function sentBy(account: TestAccount) {
  return db()
    .select()
    .from(messages)
    .where(and(eq(messages.accountId, account.accountId), eq(messages.direction, 'outbound')));
}

async function outboundCount(account: TestAccount): Promise<number> {
  const [row] = await db()
    .select({ n: count() })
    .from(messages)
    .where(and(eq(messages.accountId, account.accountId), eq(messages.direction, 'outbound')));
  return row?.n ?? 0;
}

function mailer(apiKey: string | undefined, options: { port?: number; user?: string } = {}) {
  return nodemailer.createTransport({
    host: '127.0.0.1',
    port: options.port ?? port,
    secure: false,
    ignoreTLS: true,
    ...(apiKey ? { auth: { user: options.user ?? 'apikey', pass: apiKey } } : {}),
  });
}

type Swaks = { code: number; output: string };

/** Debian's swaks against a door; resolves with its exit code and the whole dialogue. */
async function swaks(args: string[]): Promise<Swaks> {
  try {
    const { stdout, stderr } = await run('/usr/bin/swaks', ['--server', '127.0.0.1', '--hide-informational', ...args], {
      timeout: 20_000,
    });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

function withKey(apiKey: string, user = 'apikey'): string[] {
  return ['--auth', 'PLAIN', '--auth-user', user, '--auth-password', apiKey];
}

function emailOutcome(outcome: string): Promise<number> {
  return metrics.emailMessages.get().then((m) => m.values.find((v) => v.labels.outcome === outcome)?.value ?? 0);
}

describe('email to SMS with nodemailer', () => {
  it('sends one SMS per recipient (To and Cc) from the default group, with the mail’s own text', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const [to, cc] = [testNumber(), testNumber()];
    const before = await emailOutcome('sent');
    const info = await mailer(account.apiKey).sendMail({
      from: 'alarms@example.org',
      to: address(to),
      cc: `+${address(cc)}`,
      subject: 'Disk full',
      text: 'Disk   /var is  95% full.\n\nOn Mon, Ops wrote:\n> old text\n> more\n-- \nZabbix server\n',
    });
    expect(info.response).toMatch(/^250 .*Queued 2 SMS/);
    const sent = await sentBy(account);
    expect(sent.map((m) => m.to).sort()).toEqual([to, cc].sort());
    for (const message of sent) {
      expect(message.content).toBe('Disk /var is 95% full.');
      expect(message.fromGroup).toBe(account.defaultGroupId);
    }
    expect(await emailOutcome('sent')).toBe(before + 1);
    const accepted = (await metrics.messagesAccepted.get()).values.find((v) => v.labels.surface === 'email');
    expect(accepted?.value).toBeGreaterThanOrEqual(2);
  });

  it('sends to To and Cc, never to Bcc, and only to this delivery’s envelope recipients', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const [to, cc, bcc] = [testNumber(), testNumber(), testNumber()];
    const info = await mailer(account.apiKey).sendMail({
      from: 'alarms@example.org',
      to: address(to),
      cc: address(cc),
      bcc: address(bcc),
      subject: 'Door open',
      text: 'Door 3 is open.',
    });
    // nodemailer names the Bcc recipient in the envelope only.
    expect(info.envelope.to).toContain(address(bcc));
    expect(info.response).toMatch(/^250 .*Queued 2 SMS/);
    expect((await sentBy(account)).map((m) => m.to).sort()).toEqual([to, cc].sort());

    // A relay that delivers the mail once per recipient: this delivery serves only its envelope's.
    const [first, second] = [testNumber(), testNumber()];
    const split = await mailer(account.apiKey).sendMail({
      envelope: { from: 'alarms@example.org', to: [address(second)] },
      from: 'alarms@example.org',
      to: [address(first), address(second)],
      text: 'Split.',
    });
    expect(split.response).toMatch(/^250 .*Queued 1 SMS/);
    expect((await sentBy(account)).filter((m) => m.content === 'Split.').map((m) => m.to)).toEqual([second]);
  });

  it('refuses a mail whose recipients are all Bcc, and sends nothing', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const before = await emailOutcome('no_recipient');
    const refused = await mailer(account.apiKey)
      .sendMail({
        from: 'alarms@example.org',
        to: 'ops@example.org',
        bcc: [address(testNumber()), address(testNumber())],
        text: 'Hidden',
      })
      .catch((error: { responseCode: number; response: string }) => error);
    expect(refused).toMatchObject({ responseCode: 550, response: expect.stringContaining('To or Cc') });
    expect(await outboundCount(account)).toBe(0);
    expect(await emailOutcome('no_recipient')).toBe(before + 1);
  });

  it('sends from the phone the address names, turns HTML into text, and sends a mail again only once', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const to = testNumber();
    const mail = {
      from: 'booking@example.org',
      to: address(to, account.phone),
      subject: 'ignored',
      html: '<p>Your table is <b>ready</b>.</p>',
      messageId: `<${crypto.randomUUID()}@example.org>`,
    };
    await mailer(account.apiKey).sendMail(mail);
    await mailer(account.apiKey).sendMail(mail);
    const sent = await sentBy(account);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ to, from: account.phone, fromGroup: null, content: 'Your table is ready.' });
  });

  it('prefixes the subject or truncates when the account says so, and sends the subject of an empty body', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const changed = await call(changeSettings, {
      method: 'PATCH',
      body: { subject_prefix: true, over_length: 'truncate' },
      apiKey: account.apiKey,
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ subject_prefix: true, over_length: 'truncate', max_length: 1600 });
    const [first, second] = [testNumber(), testNumber()];
    await mailer(account.apiKey).sendMail({ to: address(first), subject: 'Door open', text: 'x'.repeat(2000) });
    const read = await call(readSettings, { apiKey: account.apiKey });
    expect(read.body.subject_prefix).toBe(true);
    await call(changeSettings, { method: 'PATCH', body: { subject_prefix: false }, apiKey: account.apiKey });
    await mailer(account.apiKey).sendMail({ to: address(second), subject: 'Only the subject', text: '' });
    const sent = await sentBy(account);
    const byTo = new Map(sent.map((m) => [m.to, m.content]));
    expect(byTo.get(first)).toBe(`Door open\n${'x'.repeat(1590)}`);
    expect(byTo.get(second)).toBe('Only the subject');
  });

  it('refuses a mail over the length with 552 naming the limit, and sends nothing', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const refused = await mailer(account.apiKey)
      .sendMail({ to: address(testNumber()), subject: 's', text: 'y'.repeat(1601) })
      .catch((error: { responseCode: number; response: string }) => error);
    expect(refused).toMatchObject({ responseCode: 552, response: expect.stringContaining('at most 1600') });
    expect(await outboundCount(account)).toBe(0);
  });
});

describe('email to SMS and roles', () => {
  it('refuses AUTH with a key whose role may not send (viewer), and sends nothing', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const key = generateKey('account');
    await db()
      .insert(apiKeys)
      .values({ accountId: account.accountId, name: 'viewer', keyHash: key.hash, prefix: key.prefix, role: 'viewer' });
    const refused = await mailer(key.key)
      .sendMail({ to: address(testNumber()), subject: 's', text: 'hello' })
      .catch((error: { responseCode: number; response: string }) => error);
    expect(refused).toMatchObject({
      responseCode: 535,
      response: expect.stringContaining("This API key's role (viewer) may not send messages"),
    });
    expect(await outboundCount(account)).toBe(0);
  });
});

describe('email to SMS refusals, with swaks', () => {
  let account: TestAccount;
  beforeAll(async () => {
    account = await createTestAccount(db(), { credits: 10 });
  });

  const cases: Array<{ name: string; args: () => string[]; expect: RegExp }> = [
    {
      name: 'no AUTH: 530 at RCPT',
      args: () => ['--port', String(port), '--to', address(testNumber()), '--from', 'x@example.org'],
      expect: /<\*\* 530 5\.7\.0 Authentication required/,
    },
    {
      name: 'a wrong key: 535',
      args: () => [
        '--port',
        String(port),
        '--to',
        address(testNumber()),
        ...withKey('sk_wrong_key_000000000000000000'),
      ],
      expect: /<~?\*\* 535 5\.7\.8 Authentication failed/,
    },
    {
      name: 'a user other than apikey: 535',
      args: () => ['--port', String(port), '--to', address(testNumber()), ...withKey(account.apiKey, 'admin')],
      expect: /<~?\*\* 535 /,
    },
    {
      name: 'another domain (no relay): 550',
      args: () => ['--port', String(port), '--to', '14155550123@gmail.com', ...withKey(account.apiKey)],
      expect: /<\*\* 550 5\.7\.1 Relaying denied/,
    },
    {
      name: 'a local part that is no number: 550',
      args: () => ['--port', String(port), '--to', `alice@${DOMAIN}`, ...withKey(account.apiKey)],
      expect: /<\*\* 550 5\.1\.3 Not a phone number/,
    },
    {
      name: 'more than 50 recipients: 552 at the 51st, and the whole mail at DATA',
      args: () => [
        '--port',
        String(port),
        '--to',
        Array.from({ length: 51 }, (_, i) => address(`+1415555${String(2000 + i)}`)).join(','),
        ...withKey(account.apiKey),
      ],
      expect:
        /<\*\* 552 5\.5\.3 At most 50 recipients in one mail\.\r?\n[\s\S]*<\*\* 552 5\.5\.3 At most 50 recipients in one mail: nothing was sent/,
    },
    {
      name: 'a text over 1600 characters: 552 naming the limit',
      args: () => [
        '--port',
        String(port),
        '--to',
        address(testNumber()),
        '--body',
        'z'.repeat(1700),
        ...withKey(account.apiKey),
      ],
      expect: /<\*\* 552 5\.3\.4 The text is \d+ characters; an SMS sent by email is at most 1600/,
    },
    {
      name: 'no text at all: 554',
      args: () => [
        '--port',
        String(port),
        '--to',
        address(testNumber()),
        '--header',
        'Subject: ',
        '--body',
        '\n-- \nsignature only',
        ...withKey(account.apiKey),
      ],
      expect: /<\*\* 554 5\.6\.0 The mail has no text/,
    },
    {
      name: 'a sending phone of another account: 550 FORBIDDEN',
      args: () => ['--port', String(port), '--to', address(testNumber(), '+14155559999'), ...withKey(account.apiKey)],
      expect: /<\*\* 550 5\.7\.1 .*\(FORBIDDEN\)/,
    },
  ];

  for (const refusal of cases) {
    it(`refuses ${refusal.name}, and sends nothing`, async () => {
      const result = await swaks(refusal.args());
      expect(result.code, result.output).not.toBe(0);
      expect(result.output).toMatch(refusal.expect);
      expect(await outboundCount(account)).toBe(0);
    });
  }

  it('refuses an opted-out recipient with 550 and a group without credits with 552', async () => {
    const poor = await createTestAccount(db(), { credits: 10 });
    const stopped = testNumber();
    await call(addOptOut, { body: { phone: stopped }, apiKey: poor.apiKey });
    const optedOut = await swaks(['--port', String(port), '--to', address(stopped), ...withKey(poor.apiKey)]);
    expect(optedOut.output).toMatch(/<\*\* 550 5\.7\.1 .*\(RECIPIENT_OPTED_OUT\)/);
    await db().update(phoneGroups).set({ balance: 0 }).where(eq(phoneGroups.id, poor.defaultGroupId));
    const broke = await swaks(['--port', String(port), '--to', address(testNumber()), ...withKey(poor.apiKey)]);
    expect(broke.output).toMatch(/<\*\* 552 5\.2\.2 .*\(INSUFFICIENT_CREDITS\)/);
    expect(await outboundCount(poor)).toBe(0);
  });

  it('sends to the recipients it may and names the ones refused', async () => {
    const mixed = await createTestAccount(db(), { credits: 10 });
    const [ok, stopped] = [testNumber(), testNumber()];
    await call(addOptOut, { body: { phone: stopped }, apiKey: mixed.apiKey });
    const result = await swaks([
      '--port',
      String(port),
      '--to',
      `${address(ok)},${address(stopped)}`,
      ...withKey(mixed.apiKey),
    ]);
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(new RegExp(`250 Queued 1 of 2 SMS; refused: \\${stopped} \\(RECIPIENT_OPTED_OUT\\)`));
    expect((await sentBy(mixed)).map((m) => m.to)).toEqual([ok]);
  });

  it('sends with swaks and AUTH LOGIN from loopback', async () => {
    const sender = await createTestAccount(db(), { credits: 10 });
    const to = testNumber();
    const result = await swaks([
      '--port',
      String(port),
      '--to',
      address(to),
      '--body',
      'Backup finished',
      '--auth',
      'LOGIN',
      '--auth-user',
      'apikey',
      '--auth-password',
      sender.apiKey,
    ]);
    expect(result.code, result.output).toBe(0);
    expect((await sentBy(sender)).map((m) => [m.to, m.content])).toEqual([[to, 'Backup finished']]);
  });
});

describe('email to SMS: who may send', () => {
  // A client on another machine: this machine's own address on its network, which is not loopback.
  const external = Object.values(os.networkInterfaces())
    .flat()
    .find((candidate) => candidate && !candidate.internal && candidate.family === 'IPv4')?.address;

  it.skipIf(!external)('refuses AUTH without STARTTLS from another machine, and takes it after STARTTLS', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const to = testNumber();
    const server = ['--server', external as string];
    const clear = await swaks([...server, '--port', String(tlsPort), '--to', address(to), ...withKey(account.apiKey)]);
    expect(clear.output).toMatch(/<~?\*\* 538 5\.7\.11 Use STARTTLS before AUTH/);
    expect(await outboundCount(account)).toBe(0);
    const secured = await swaks([
      ...server,
      '--port',
      String(tlsPort),
      '--tls',
      '--to',
      address(to),
      '--body',
      'Over TLS',
      ...withKey(account.apiKey),
    ]);
    expect(secured.code, secured.output).toBe(0);
    expect((await sentBy(account)).map((m) => m.content)).toEqual(['Over TLS']);
  });

  it('takes mail from an account’s own address without AUTH where allowed, and from no other', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const to = testNumber();
    const stranger = await swaks(['--port', String(confirmedPort), '--to', address(to), '--from', 'evil@example.org']);
    expect(stranger.output).toMatch(/<\*\* 530 5\.7\.0 Authentication required/);
    const elsewhere = await swaks(['--port', String(port), '--to', address(to), '--from', account.email]);
    expect(elsewhere.output).toMatch(/<\*\* 530 /);
    expect(await outboundCount(account)).toBe(0);
    const own = await swaks(['--port', String(confirmedPort), '--to', address(to), '--from', account.email]);
    expect(own.code, own.output).toBe(0);
    expect((await sentBy(account)).map((m) => m.to)).toEqual([to]);
  });

  it(`locks AUTH out of an address after ${AUTH_FAILURES_ALLOWED} failed logins, even with the right key`, async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const to = testNumber();
    for (let i = 0; i < AUTH_FAILURES_ALLOWED; i++) {
      await mailer('sk_wrong', { port: confirmedPort })
        .sendMail({ to: address(to), text: 'x' })
        .catch(() => undefined);
    }
    const locked = await swaks(['--port', String(confirmedPort), '--to', address(to), ...withKey(account.apiKey)]);
    expect(locked.output).toMatch(/<~?\*\* 454 4\.7\.0 Too many failed logins/);
    expect(await outboundCount(account)).toBe(0);
  });
});
