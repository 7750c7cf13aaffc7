import { createCipheriv, pbkdf2Sync, randomBytes } from 'node:crypto';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { eq } from 'drizzle-orm';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as integratorMessages from '@/app/api/3rdparty/v1/messages/route';
import { POST as sendBulk } from '@/app/api/v1/bulk-messages/route';
import { POST as sendMessage } from '@/app/api/v1/messages/route';
import { POST as addOptOut } from '@/app/api/v1/opt-outs/route';
import { POST as createSmppLogin } from '@/app/api/v1/smpp/credentials/route';
import { POST as createTwilioToken } from '@/app/api/v1/twilio/auth-token/route';
import { POST as mcpPost } from '@/app/mcp/route';
import { accounts, phoneGroups } from '@/db/schema';
import {
  API_ORIGINS,
  AUTOMATIC_ORIGINS,
  ENCRYPTED_SCREENS,
  OUTBOUND_ORIGINS,
  type Screens,
  screensOf,
} from '@/lib/messages/origins';
import { listenSmtpDoor } from '@/lib/protocols/email/server';
import { SUBMIT_REFUSALS } from '@/lib/protocols/smpp/statuses';
import { balanceOf, createTestAccount, type TestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';
import { boundClient, type Client, nameOf, testSmppServer } from '../smpp-client';
import { pairVerifiedApp } from '../smsgate-app';
import { twilioClient } from '../twilio-client';

/**
 * Every producer of an outbound SMS goes through the one pipeline (lib/messages/pipeline.ts), and
 * the screens it passes are its origin's row of ORIGINS (lib/messages/origins.ts). This file walks the
 * API producers, each driven through its own API as its callers drive it; the automatic producers
 * (rule, HELP, webhook and TwiML replies, opt-out confirmations, SIM checks, verification codes)
 * are walked the same way in automatic-sms-gate.test.ts. The expected outcome of each case is read
 * from the table, so the table and the behaviour cannot drift apart.
 */

process.env.APP_SECRET ??= 'test-app-secret-for-webhooks-0123456789abcdef';

const { db } = withTestDatabase();

/** libphonenumber: PREMIUM_RATE, in the fixtures' own country. */
const PREMIUM = '+19002345678';

type Outcome = { sent: true } | { sent: false; code: string };

type Producer = {
  /** The screens this producer's requests pass. */
  screens: Screens;
  prepare?(account: TestAccount): Promise<void>;
  produce(account: TestAccount, to: string): Promise<Outcome>;
  /** How this producer's answer names a refusal of the pipeline (by default its code). */
  refusal?(code: string): string;
};

const problem = (res: { status: number; body: { code?: string } }, ok: number): Outcome =>
  res.status === ok ? { sent: true } : { sent: false, code: String(res.body.code) };

/** Twilio's error numbers for the refusals walked here (lib/protocols/twilio/errors.ts). */
const TWILIO_CODES: Record<number, string> = {
  10001: 'INSUFFICIENT_CREDITS',
  21610: 'RECIPIENT_OPTED_OUT',
  21408: 'RECIPIENT_COUNTRY_NOT_ALLOWED',
};

const PASSPHRASE = 'correct horse battery staple';

/** The SMSGate app's ciphertext format (as in smsgate-encrypted.test.ts). */
function encrypt(cleartext: string): string {
  const salt = randomBytes(16);
  const key = pbkdf2Sync(PASSPHRASE, salt, 1_000, 32, 'sha1');
  const cipher = createCipheriv('aes-256-cbc', key, salt);
  const data = Buffer.concat([cipher.update(cleartext, 'utf8'), cipher.final()]);
  return `$aes-256-cbc/pbkdf2-sha1$i=1000$${salt.toString('base64')}$${data.toString('base64')}`;
}

const twilioTokens = new Map<string, { account_sid: string; auth_token: string }>();

let smppServer: Awaited<ReturnType<typeof testSmppServer>>;
const SMTP_DOMAIN = 'sms.example.test';
let smtpDoor: Awaited<ReturnType<typeof listenSmtpDoor>>;
const smppClients = new Map<string, Client>();

beforeAll(async () => {
  smppServer = await testSmppServer();
  smtpDoor = await listenSmtpDoor({
    db: db(),
    port: 0,
    host: '127.0.0.1',
    domains: [SMTP_DOMAIN],
    allowConfirmedSenders: false,
  });
});

afterAll(async () => {
  await Promise.all([...smppClients.values()].map((client) => client.close()));
  await smppServer.close();
  await smtpDoor.stop();
});

const PRODUCERS: Record<string, Producer> = {
  'POST /api/v1/messages (api)': {
    screens: screensOf('api'),
    produce: async (account, to) =>
      problem(
        await call(sendMessage, { body: { from: account.phone, to, content: 'hello' }, apiKey: account.apiKey }),
        201,
      ),
  },
  'POST /api/v1/bulk-messages (api)': {
    screens: screensOf('api'),
    produce: async (account, to) =>
      problem(
        await call(sendBulk, {
          body: { from: account.phone, recipients: [to], content: 'hello' },
          apiKey: account.apiKey,
        }),
        201,
      ),
  },
  'POST /3rdparty/v1/messages (smsgate_api)': {
    screens: screensOf('smsgate_api'),
    async produce(account, to) {
      const res = await call(integratorMessages.POST, {
        body: { phoneNumbers: [to], textMessage: { text: 'hello' } },
        headers: { authorization: `Basic ${Buffer.from(`user:${account.apiKey}`).toString('base64')}` },
        path: '/api/3rdparty/v1/messages',
      });
      return problem(res, 202);
    },
  },
  'Twilio Messages.create (twilio)': {
    screens: screensOf('twilio'),
    async prepare(account) {
      const res = await call(createTwilioToken, { method: 'POST', apiKey: account.apiKey });
      expect(res.status, res.text).toBe(201);
      twilioTokens.set(account.accountId, res.body);
    },
    async produce(account, to) {
      const creds = twilioTokens.get(account.accountId);
      if (!creds) throw new Error('no Twilio token');
      try {
        await twilioClient(creds.account_sid, creds.auth_token).messages.create({
          from: account.phone,
          to,
          body: 'hi',
        });
        return { sent: true };
      } catch (error) {
        const code = (error as { code: number }).code;
        return { sent: false, code: TWILIO_CODES[code] ?? `twilio ${code}` };
      }
    },
  },
  'SMPP submit_sm (smpp)': {
    screens: screensOf('smpp'),
    async prepare(account) {
      const res = await call(createSmppLogin, { body: {}, apiKey: account.apiKey });
      expect(res.status, res.text).toBe(201);
      smppClients.set(account.accountId, await boundClient(smppServer.port, 'bind_transmitter', res.body));
    },
    async produce(account, to) {
      const client = smppClients.get(account.accountId);
      if (!client) throw new Error('no SMPP bind');
      const resp = await client.request('submit_sm', {
        source_addr: account.phone.slice(1),
        destination_addr: to.slice(1),
        short_message: 'hello',
      });
      return resp.command_status === 0 ? { sent: true } : { sent: false, code: nameOf(resp.command_status) };
    },
    // submit_sm_resp carries a status only: the documented table (docs/smpp.md).
    refusal: (code) => SUBMIT_REFUSALS[code as keyof typeof SUBMIT_REFUSALS] ?? code,
  },
  'MCP tool send_sms (mcp)': {
    screens: screensOf('mcp'),
    async produce(account, to) {
      // The door is off unless the operator turns it on.
      vi.stubEnv('MCP_ENABLED', '1');
      const client = new McpClient({ name: 'producers-walk', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL('http://localhost:3000/mcp'), {
          requestInit: { headers: { authorization: `Bearer ${account.apiKey}` } },
          fetch: async (input, init) => mcpPost(new Request(input, init), { params: Promise.resolve({}) }),
        }),
      );
      try {
        const result = (await client.callTool({
          name: 'send_sms',
          arguments: { from: account.phone, to, content: 'hello' },
        })) as { isError?: boolean; structuredContent?: { code?: string } };
        return result.isError ? { sent: false, code: String(result.structuredContent?.code) } : { sent: true };
      } finally {
        await client.close();
      }
    },
  },
  'Email to SMS (email)': {
    screens: screensOf('email'),
    async produce(account, to) {
      const mailer = nodemailer.createTransport({
        host: '127.0.0.1',
        port: smtpDoor.port,
        secure: false,
        ignoreTLS: true,
        auth: { user: 'apikey', pass: account.apiKey },
      });
      try {
        await mailer.sendMail({ from: 'ops@example.test', to: `${to.slice(1)}@${SMTP_DOMAIN}`, text: 'hello' });
        return { sent: true };
      } catch (error) {
        // A refusal's reply ends with the problem's code: `550 5.7.1 … (RECIPIENT_OPTED_OUT)`.
        const reply = String((error as { response?: string }).response);
        return { sent: false, code: /\((\w+)\)\s*$/.exec(reply)?.[1] ?? reply };
      }
    },
  },
  'POST /api/v1/messages with encrypted: true (api, encrypted)': {
    screens: ENCRYPTED_SCREENS,
    async prepare(account) {
      await pairVerifiedApp(account);
    },
    produce: async (account, to) =>
      problem(
        await call(sendMessage, {
          body: { from: account.phone, to: encrypt(to), content: encrypt('hello'), encrypted: true },
          apiKey: account.apiKey,
        }),
        201,
      ),
  },
};

/** Each screen's case: makes a request that screen concerns, and what the screen refuses it with. */
const SCREEN_CASES: Array<{
  screen: string;
  applies: (screens: Screens) => boolean;
  refusal: string;
  run: (producer: Producer, account: TestAccount) => Promise<Outcome>;
}> = [
  {
    screen: 'an opted-out recipient',
    applies: (screens) => screens.optOut,
    refusal: 'RECIPIENT_OPTED_OUT',
    async run(producer, account) {
      const to = testNumber();
      const res = await call(addOptOut, { body: { phone: to }, apiKey: account.apiKey });
      expect(res.status, res.text).toBe(201);
      return producer.produce(account, to);
    },
  },
  {
    screen: 'a country the account does not list',
    applies: (screens) => screens.country !== 'none',
    refusal: 'RECIPIENT_COUNTRY_NOT_ALLOWED',
    async run(producer, account) {
      await db()
        .update(accounts)
        .set({ allowedCountries: ['GB'] })
        .where(eq(accounts.id, account.accountId));
      return producer.produce(account, testNumber());
    },
  },
  {
    screen: 'a premium-rate number',
    applies: (screens) => screens.premiumRate,
    refusal: 'FORBIDDEN',
    run: (producer, account) => producer.produce(account, PREMIUM),
  },
  {
    screen: 'a fifth message to one number within the hour',
    applies: (screens) => screens.caps === 'automatic',
    refusal: 'RATE_LIMITED',
    async run(producer, account) {
      const to = testNumber();
      for (let i = 0; i < 4; i += 1) expect(await producer.produce(account, to)).toEqual({ sent: true });
      return producer.produce(account, to);
    },
  },
  {
    screen: 'a group with no credit',
    applies: (screens) => screens.credits === 'sender',
    refusal: 'INSUFFICIENT_CREDITS',
    async run(producer, account) {
      await db().update(phoneGroups).set({ balance: 0 }).where(eq(phoneGroups.id, account.defaultGroupId));
      return producer.produce(account, testNumber());
    },
  },
];

describe('every API producer passes the screens of its origin, and only those', () => {
  it('the producers walked here and in automatic-sms-gate.test.ts are every origin', () => {
    expect([...API_ORIGINS, ...AUTOMATIC_ORIGINS].sort()).toEqual([...OUTBOUND_ORIGINS].sort());
    const walked = new Set(Object.keys(PRODUCERS).map((name) => /\((\w+)/.exec(name)?.[1]));
    expect([...walked].sort()).toEqual([...API_ORIGINS].sort());
  });

  it('an API caller chose its recipients: the opt-out, country and credit screens apply, not the automatic ones', () => {
    for (const origin of API_ORIGINS) {
      expect(screensOf(origin)).toEqual({
        optOut: true,
        country: 'listed',
        premiumRate: false,
        caps: 'none',
        credits: 'sender',
      });
    }
    // Ciphertext cannot be read: only the credits apply, whoever sends it.
    expect(screensOf('api', true)).toEqual(ENCRYPTED_SCREENS);
  });

  for (const [name, producer] of Object.entries(PRODUCERS)) {
    for (const testCase of SCREEN_CASES) {
      const applies = testCase.applies(producer.screens);
      it(`${name}: ${testCase.screen} → ${applies ? testCase.refusal : 'sent'}`, async () => {
        const account = await createTestAccount(db(), { credits: 20 });
        await producer.prepare?.(account);
        const before = await balanceOf(db(), account.defaultGroupId);
        const outcome = await testCase.run(producer, account);
        const refusal = producer.refusal?.(testCase.refusal) ?? testCase.refusal;
        expect(outcome).toEqual(applies ? { sent: false, code: refusal } : { sent: true });
        // A refusal charges nothing.
        if (applies && testCase.refusal !== 'INSUFFICIENT_CREDITS') {
          expect(await balanceOf(db(), account.defaultGroupId)).toBe(before);
        }
      });
    }
  }
});
