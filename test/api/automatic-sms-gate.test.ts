import { and, eq } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { POST as received } from '@/app/api/v1/device/messages/received/route';
import { POST as createRule } from '@/app/api/v1/inbound-rules/route';
import { POST as tryRules } from '@/app/api/v1/inbound-rules/test/route';
import { POST as addOptOut } from '@/app/api/v1/opt-outs/route';
import { POST as resendSimCheck } from '@/app/api/v1/phones/[id]/sim-check/resend/route';
import { POST as registerDevice } from '@/app/api/v1/phones/register-device/route';
import { PATCH as patchSending } from '@/app/api/v1/settings/sending/route';
import { accounts, messages, phoneGroups, phones } from '@/db/schema';
import { actOnWebhookReply } from '@/lib/automation/webhook-reply';
import { AUTOMATIC_ORIGINS, type AutomaticOrigin, screensOf } from '@/lib/messages/origins';
import { createPhone } from '@/lib/phones/create';
import { actOnTwimlReply } from '@/lib/protocols/twilio/twiml-reply';
import { balanceOf, createTestAccount, type TestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';
import { pairApp, pullAs } from '../smsgate-app';

process.env.APP_SECRET ??= 'test-app-secret-for-webhooks-0123456789abcdef';

const { db } = withTestDatabase();

afterEach(() => {
  vi.unstubAllEnvs();
});

/** A mobile number in Guernsey (+44 7911…): abroad for the fixtures' US accounts. */
const ABROAD = '+447911123456';
/** libphonenumber: PREMIUM_RATE, in the fixtures' own country. */
const PREMIUM = '+19002345678';

/**
 * An account that records every inbound report (`inbound_dedup_seconds` 0): these tests text the same
 * word from one number again and again, each time a new SMS, to reach the caps.
 */
async function keepingEveryReport(...args: Parameters<typeof createTestAccount>): Promise<TestAccount> {
  const account = await createTestAccount(...args);
  await db().update(accounts).set({ inboundDedupSeconds: 0 }).where(eq(accounts.id, account.accountId));
  return account;
}

async function inbound(account: TestAccount, from: string, content: string) {
  const res = await call(received, {
    body: { from, content, device_message_id: crypto.randomUUID() },
    apiKey: account.deviceKey,
  });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; automation: Array<{ result: string; reason?: string }> | null };
}

async function automationOf(account: TestAccount, messageId: string) {
  const [row] = await db()
    .select({ automation: messages.automation })
    .from(messages)
    .where(and(eq(messages.accountId, account.accountId), eq(messages.id, messageId)));
  return row?.automation ?? [];
}

async function outboundTo(accountId: string, to: string) {
  return db()
    .select()
    .from(messages)
    .where(and(eq(messages.accountId, accountId), eq(messages.to, to), eq(messages.direction, 'outbound')));
}

async function optOut(account: TestAccount, phone: string) {
  const res = await call(addOptOut, { body: { phone }, apiKey: account.apiKey });
  expect(res.status, res.text).toBe(201);
}

async function allowCountries(account: TestAccount, countries: string[]) {
  const res = await call(patchSending, {
    method: 'PATCH',
    body: { allowed_countries: countries },
    apiKey: account.apiKey,
  });
  expect(res.status, res.text).toBe(200);
}

async function setBalance(account: TestAccount, credits: number) {
  await db().update(phoneGroups).set({ balance: credits }).where(eq(phoneGroups.id, account.defaultGroupId));
}

/** What became of one automatic SMS: sent, or refused (with the reason the log shows, where it shows one). */
type Outcome = { sent: boolean; reason?: string };

type Producer = {
  prepare(account: TestAccount): Promise<void>;
  /** Makes the producer text `to`, as the counterpart whose message causes it. */
  produce(account: TestAccount, to: string): Promise<Outcome>;
};

const entryOutcome = (entry: { result: string; reason?: string } | undefined): Outcome =>
  entry?.result === 'sent' ? { sent: true } : { sent: false, reason: entry?.reason };

const webhookTarget = (account: TestAccount, inboundMessageId: string) => ({
  accountId: account.accountId,
  webhookId: crypto.randomUUID(),
  inboundMessageId,
});

/** Each producer that answers an inbound message, driven the way it runs for real. */
const PRODUCERS: Record<Exclude<AutomaticOrigin, 'sim_check' | 'verification_code'>, Producer> = {
  rule_reply: {
    async prepare(account) {
      const res = await call(createRule, {
        body: { name: 'catch-all', actions: [{ type: 'reply', content: 'Thanks' }] },
        apiKey: account.apiKey,
      });
      expect(res.status, res.text).toBe(201);
    },
    produce: async (account, to) => entryOutcome((await inbound(account, to, 'hello')).automation?.[0]),
  },
  help_reply: {
    async prepare(account) {
      await db().update(accounts).set({ helpReply: 'Acme: call us' }).where(eq(accounts.id, account.accountId));
    },
    produce: async (account, to) => entryOutcome((await inbound(account, to, 'HELP')).automation?.[0]),
  },
  webhook_reply: {
    async prepare() {},
    async produce(account, to) {
      const message = await inbound(account, to, 'hello');
      await actOnWebhookReply(db(), webhookTarget(account, message.id), {
        contentType: 'application/json',
        body: JSON.stringify({ reply: { content: 'ok' } }),
        truncated: false,
      });
      return entryOutcome((await automationOf(account, message.id)).at(-1));
    },
  },
  twiml_reply: {
    async prepare() {},
    async produce(account, to) {
      const message = await inbound(account, to, 'hello');
      await actOnTwimlReply(db(), webhookTarget(account, message.id), {
        contentType: 'application/xml',
        body: '<Response><Message>ok</Message></Response>',
        truncated: false,
      });
      return entryOutcome((await automationOf(account, message.id)).at(-1));
    },
  },
  opt_out_confirmation: {
    async prepare(account) {
      await db()
        .update(accounts)
        .set({ optOutReply: 'You will get no more texts' })
        .where(eq(accounts.id, account.accountId));
    },
    async produce(account, to) {
      const before = (await outboundTo(account.accountId, to)).length;
      await inbound(account, to, 'STOP');
      const sent = (await outboundTo(account.accountId, to)).length > before;
      // Back in, so that the next STOP opts out (and confirms) again.
      await inbound(account, to, 'START');
      return { sent };
    },
  },
};

/** For each screen, what producing towards a number it concerns does: the case refuses unless the origin skips that screen. */
const SCREEN_CASES: Record<
  string,
  (producer: Producer, account: TestAccount, origin: AutomaticOrigin) => Promise<Outcome>
> = {
  async 'opted out'(producer, account, origin) {
    const to = testNumber();
    // An opt-out confirmation's own STOP opts the number out: it must still be told, once.
    if (origin !== 'opt_out_confirmation') await optOut(account, to);
    return producer.produce(account, to);
  },
  country: (producer, account) => producer.produce(account, ABROAD),
  'premium-rate': (producer, account) => producer.produce(account, PREMIUM),
  async 'per-number cap'(producer, account) {
    const to = testNumber();
    for (let i = 0; i < 3; i += 1) expect(await producer.produce(account, to)).toEqual({ sent: true });
    return producer.produce(account, to);
  },
  async 'per-account cap'(producer, account) {
    vi.stubEnv('AUTO_SMS_ACCOUNT_HOURLY_LIMIT', '2');
    for (let i = 0; i < 2; i += 1) expect(await producer.produce(account, testNumber())).toEqual({ sent: true });
    return producer.produce(account, testNumber());
  },
  async credits(producer, account) {
    await setBalance(account, 0);
    return producer.produce(account, testNumber());
  },
};

/** What each case must come to (the reason where the automation log records one). */
const REFUSED_BECAUSE: Record<string, string> = {
  'opted out': 'opted_out',
  country: 'country_not_of_phones',
  'premium-rate': 'premium_rate',
  'per-number cap': 'limit_reached',
  'per-account cap': 'account_limit_reached',
  credits: 'no_credit',
};

function expectedOutcome(origin: keyof typeof PRODUCERS, screen: string): Outcome {
  // The opt-out confirmation is logged nowhere, and skips the opt-out screen.
  if (origin !== 'opt_out_confirmation') return { sent: false, reason: REFUSED_BECAUSE[screen] };
  return { sent: screen === 'opted out' };
}

describe('every automatic SMS passes the gate of its origin', () => {
  it('the walk below covers every origin of the gate, and the gate’s table says what it shows', () => {
    expect([...Object.keys(PRODUCERS), 'sim_check', 'verification_code'].sort()).toEqual([...AUTOMATIC_ORIGINS].sort());
    for (const origin of Object.keys(PRODUCERS) as Array<keyof typeof PRODUCERS>) {
      expect(screensOf(origin)).toEqual({
        optOut: origin !== 'opt_out_confirmation',
        country: 'listed_or_phones',
        premiumRate: true,
        caps: 'automatic',
        credits: 'sender',
      });
    }
  });

  for (const origin of Object.keys(PRODUCERS) as Array<keyof typeof PRODUCERS>) {
    for (const [screen, run] of Object.entries(SCREEN_CASES)) {
      const expected = expectedOutcome(origin, screen);
      it(`${origin}: ${screen} → ${expected.sent ? 'sent' : `refused${expected.reason ? ` (${expected.reason})` : ''}`}`, async () => {
        const account = await keepingEveryReport(db(), { credits: 100 });
        await PRODUCERS[origin].prepare(account);
        expect(await run(PRODUCERS[origin], account, origin)).toEqual(expected);
      });
    }
  }
});

describe('opt-out confirmations', () => {
  it('STOP/START five times from abroad sends no confirmation to a US account’s abroad number, as a rule reply is skipped', async () => {
    const account = await keepingEveryReport(db(), { credits: 100 });
    await PRODUCERS.opt_out_confirmation.prepare(account);
    await PRODUCERS.rule_reply.prepare(account);
    for (let i = 0; i < 5; i += 1) {
      await inbound(account, ABROAD, 'STOP');
      await inbound(account, ABROAD, 'START');
    }
    expect(await outboundTo(account.accountId, ABROAD)).toEqual([]);
    expect((await inbound(account, ABROAD, 'hello')).automation?.[0]).toMatchObject({
      result: 'skipped',
      reason: 'country_not_of_phones',
    });
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(100);
  });

  it('from a number the account may text, at most AUTO_REPLY_LIMIT (3) in an hour', async () => {
    const account = await keepingEveryReport(db(), { credits: 100 });
    await PRODUCERS.opt_out_confirmation.prepare(account);
    await allowCountries(account, ['GG', 'GB', 'US']);
    for (let i = 0; i < 5; i += 1) {
      await inbound(account, ABROAD, 'STOP');
      await inbound(account, ABROAD, 'START');
    }
    expect(await outboundTo(account.accountId, ABROAD)).toHaveLength(3);
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(97);
  });
});

describe('premium-rate numbers', () => {
  it('the rules’ test says a reply to one would be skipped, and the reply is', async () => {
    const account = await keepingEveryReport(db(), { credits: 100 });
    await PRODUCERS.rule_reply.prepare(account);
    const preview = await call(tryRules, {
      body: { phone: account.phone, from: PREMIUM, text: 'hi' },
      apiKey: account.apiKey,
    });
    expect(preview.status, preview.text).toBe(200);
    expect(preview.body.rules[0].actions).toEqual([expect.objectContaining({ would: 'skip', reason: 'premium_rate' })]);
    expect(preview.body.credits).toBe(0);
    expect((await inbound(account, PREMIUM, 'hi')).automation?.[0]).toMatchObject({ reason: 'premium_rate' });
  });

  it('a shared-cost number is refused alike, and AUTO_SMS_PREMIUM_RATE=1 lets both through', async () => {
    const account = await keepingEveryReport(db(), { credits: 100 });
    await PRODUCERS.rule_reply.prepare(account);
    await allowCountries(account, ['US', 'FR']);
    expect(await PRODUCERS.rule_reply.produce(account, '+33810123456')).toEqual({
      sent: false,
      reason: 'premium_rate',
    });
    vi.stubEnv('AUTO_SMS_PREMIUM_RATE', '1');
    expect(await PRODUCERS.rule_reply.produce(account, PREMIUM)).toEqual({ sent: true });
  });
});

/** The operator's phone (VERIFICATION_SENDER_PHONE) of a fresh operator account with 100 credits. */
async function operatorAccount(): Promise<TestAccount> {
  const operator = await keepingEveryReport(db(), { credits: 100 });
  vi.stubEnv('VERIFICATION_SENDER_PHONE', operator.phone);
  vi.stubEnv('VERIFICATION_SENDER_EMAIL', operator.email);
  return operator;
}

/** Another account's phone with this number, paired with the app: its SIM check starts. */
async function pairedPhone(number: string) {
  const tenant = await keepingEveryReport(db(), { credits: 100 });
  const phone = await createPhone(db(), tenant.accountId, { phone: number });
  const app = await pairApp(tenant, phone.id, number);
  return { tenant, phoneId: phone.id, app };
}

async function unsentChecksFrom(operator: TestAccount, to: string) {
  return (await outboundTo(operator.accountId, to)).filter((m) => m.status === 'queued');
}

describe('SIM checks (origin sim_check)', () => {
  it('the operator texts only where its own rules let it: an abroad number is checked by its own phone instead', async () => {
    const operator = await operatorAccount();
    const { tenant, phoneId, app } = await pairedPhone('+447911123457');
    expect(await outboundTo(operator.accountId, app.phone)).toEqual([]);
    expect(await balanceOf(db(), operator.defaultGroupId)).toBe(100);
    // The check went the other way: a loopback on the phone itself.
    expect((await pullAs(app)).find((m) => m.phoneNumbers.includes(app.phone))).toBeDefined();
    const [row] = await db()
      .select()
      .from(phones)
      .where(and(eq(phones.accountId, tenant.accountId), eq(phones.id, phoneId)));
    expect(row).toMatchObject({ simVerification: 'pending', simCheckSender: null });
  });

  it('a number opted out of the operator, or premium-rate, is not texted by the operator', async () => {
    const operator = await operatorAccount();
    const number = testNumber();
    await optOut(operator, number);
    await pairedPhone(number);
    await pairedPhone(PREMIUM);
    expect(await outboundTo(operator.accountId, number)).toEqual([]);
    expect(await outboundTo(operator.accountId, PREMIUM)).toEqual([]);
    expect(await balanceOf(db(), operator.defaultGroupId)).toBe(100);
  });

  it('ten resends from another account: three pass, then 429 with Retry-After; one check stays queued, the others refunded', async () => {
    const operator = await operatorAccount();
    await allowCountries(operator, ['US', 'GB', 'GG']);
    const { tenant, phoneId, app } = await pairedPhone('+447911123457');
    expect(await unsentChecksFrom(operator, app.phone)).toHaveLength(1);
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 10; i += 1) {
      const res = await call(resendSimCheck, { method: 'POST', params: { id: phoneId }, apiKey: tenant.apiKey });
      statuses.push(res.status);
      if (res.status === 429) retryAfter = res.headers.get('retry-after');
    }
    expect(statuses).toEqual([202, 202, 202, 429, 429, 429, 429, 429, 429, 429]);
    expect(Number(retryAfter)).toBeGreaterThan(3000);
    const checks = await outboundTo(operator.accountId, app.phone);
    expect(checks.map((m) => m.status).sort()).toEqual(['cancelled', 'cancelled', 'cancelled', 'queued']);
    expect(await balanceOf(db(), operator.defaultGroupId)).toBe(99);
  });

  it('SIM_CHECK_RESENDS_PER_HOUR sets the limit', async () => {
    vi.stubEnv('SIM_CHECK_RESENDS_PER_HOUR', '1');
    const tenant = await keepingEveryReport(db());
    await pairApp(tenant);
    const resend = () =>
      call(resendSimCheck, { method: 'POST', params: { id: tenant.phoneId }, apiKey: tenant.apiKey });
    expect((await resend()).status).toBe(202);
    expect((await resend()).status).toBe(429);
  });
});

describe('verification codes (origin verification_code)', () => {
  const register = (phoneNumber: string) => call(registerDevice, { body: { phone_number: phoneNumber } });

  it('the operator’s rules refuse an abroad, opted-out or premium-rate number with one reason text, charging nothing', async () => {
    const operator = await operatorAccount();
    const optedOut = testNumber();
    await optOut(operator, optedOut);
    const abroad = await register(ABROAD);
    expect(abroad.status, abroad.text).toBe(422);
    expect(abroad.body).toMatchObject({ code: 'RECIPIENT_COUNTRY_NOT_ALLOWED' });
    expect(abroad.body.detail).toContain('country_not_of_phones');
    expect((await register(optedOut)).body).toMatchObject({ code: 'RECIPIENT_OPTED_OUT' });
    const premium = await register(PREMIUM);
    expect(premium.status).toBe(403);
    expect(premium.body.detail).toContain('premium-rate or shared-cost');
    expect(await balanceOf(db(), operator.defaultGroupId)).toBe(100);
    // The operator listing the country lets it through.
    await allowCountries(operator, ['US', 'GG']);
    expect((await register(ABROAD)).status).toBe(201);
    expect(await balanceOf(db(), operator.defaultGroupId)).toBe(99);
  });
});

describe('a full queue', () => {
  it('skips an automatic reply with queue_full rather than failing the inbound message', async () => {
    const account = await createTestAccount(db(), { credits: 100 });
    await PRODUCERS.rule_reply.prepare(account);
    await db().update(accounts).set({ maxQueuedMessages: 1 }).where(eq(accounts.id, account.accountId));
    // One message waits for the phone: the queue is full.
    expect(await PRODUCERS.rule_reply.produce(account, testNumber())).toEqual({ sent: true });
    expect(await PRODUCERS.rule_reply.produce(account, testNumber())).toEqual({ sent: false, reason: 'queue_full' });
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(99);
  });
});
