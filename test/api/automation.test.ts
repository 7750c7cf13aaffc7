import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { POST as transfer } from '@/app/api/v1/credits/transfer/route';
import { POST as received } from '@/app/api/v1/device/messages/received/route';
import { DELETE as deleteRule, PATCH as patchRule, GET as readRule } from '@/app/api/v1/inbound-rules/[id]/route';
import { POST as createRule, GET as listRules } from '@/app/api/v1/inbound-rules/route';
import { PATCH as patchSettings, GET as readSettings } from '@/app/api/v1/inbound-rules/settings/route';
import { POST as tryRules } from '@/app/api/v1/inbound-rules/test/route';
import { GET as readMessage } from '@/app/api/v1/messages/[id]/route';
import { POST as createGroup } from '@/app/api/v1/phone-groups/route';
import { POST as createWebhookRoute } from '@/app/api/v1/webhooks/route';
import {
  automaticSends,
  creditLedger,
  devInbox,
  messages,
  optOuts,
  webhookAttempts,
  webhookDeliveries,
  webhooks,
} from '@/db/schema';
import { runEmailBatch } from '@/lib/email/outbox';
import { resendDelivery } from '@/lib/webhooks/deliveries';
import { createWebhook } from '@/lib/webhooks/manage';
import { runDeliveryBatch } from '@/lib/webhooks/worker';
import { describeAuthCases } from '../auth-cases';
import {
  addTestPhone,
  balanceOf,
  createTestAccount,
  sharedTestAccount,
  type TestAccount,
  testNumber,
} from '../fixtures';
import { createTestCertificates, type Receiver, startReceiver } from '../fixtures/tls/receiver';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

process.env.APP_SECRET ??= 'test-app-secret-for-webhooks-0123456789abcdef';

const { db } = withTestDatabase();
const { fixture } = sharedTestAccount(db);

const reply = (content: string) => ({ type: 'reply', content });

describeAuthCases('GET /api/v1/inbound-rules', { handler: listRules, request: {}, accepts: 'account', fixture });
describeAuthCases('POST /api/v1/inbound-rules', {
  handler: createRule,
  request: { body: { name: 'x', actions: [reply('x')] } },
  accepts: 'account',
  fixture,
});
describeAuthCases('POST /api/v1/inbound-rules/test', {
  handler: tryRules,
  request: () => ({ body: { phone: testNumber(), from: testNumber(), text: 'x' } }),
  accepts: 'account',
  fixture,
});
describeAuthCases('PATCH /api/v1/inbound-rules/settings', {
  handler: patchSettings,
  request: { body: { help_reply: null }, method: 'PATCH' },
  accepts: 'account',
  fixture,
});

/** The phone `who` (or `device`) receives `content` from `from`, as its device reports it. */
async function inbound(
  who: { deviceKey: string },
  from: string,
  content: string,
  deviceMessageId: string = crypto.randomUUID(),
) {
  const res = await call(received, {
    body: { from, content, device_message_id: deviceMessageId },
    apiKey: who.deviceKey,
  });
  expect(res.status, res.text).toBeLessThan(300);
  return res.body as { id: string; automation: Array<Record<string, unknown>> | null };
}

async function rule(account: TestAccount, body: Record<string, unknown>) {
  const res = await call(createRule, { body: { name: 'rule', ...body }, apiKey: account.apiKey });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; position: number };
}

/** The account's outbound messages, oldest first. */
async function outbound(account: TestAccount) {
  return db()
    .select()
    .from(messages)
    .where(and(eq(messages.accountId, account.accountId), eq(messages.direction, 'outbound')))
    .orderBy(messages.createdAt);
}

describe('inbound rules: CRUD and validation', () => {
  it('creates, lists in order, moves, updates and deletes rules, renumbering positions', async () => {
    const account = await createTestAccount(db());
    const first = await rule(account, { name: 'first', match: { keyword: 'a' }, actions: [reply('A')] });
    const second = await rule(account, { name: 'second', actions: [reply('B')] });
    const third = await rule(account, { name: 'third', position: 1, actions: [reply('C')] });
    const names = async () =>
      (await call(listRules, { apiKey: account.apiKey })).body.data.map((r: { name: string; position: number }) => [
        r.name,
        r.position,
      ]);
    expect(await names()).toEqual([
      ['third', 1],
      ['first', 2],
      ['second', 3],
    ]);
    const moved = await call(patchRule, {
      method: 'PATCH',
      params: { id: second.id },
      body: { position: 1, enabled: false, match: { pattern: '^x' } },
      apiKey: account.apiKey,
    });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ position: 1, enabled: false, match: { keyword: null, pattern: '^x' } });
    expect(await names()).toEqual([
      ['second', 1],
      ['third', 2],
      ['first', 3],
    ]);
    expect(
      (await call(deleteRule, { method: 'DELETE', params: { id: third.id }, apiKey: account.apiKey })).status,
    ).toBe(204);
    expect(await names()).toEqual([
      ['second', 1],
      ['first', 2],
    ]);
    const read = await call(readRule, { params: { id: first.id }, apiKey: account.apiKey });
    expect(read.body).toMatchObject({
      name: 'first',
      match: { keyword: 'a', pattern: null, from_prefix: null },
      scope: { phone_ids: [], group_ids: [] },
      actions: [{ type: 'reply', content: 'A' }],
      continue: false,
    });
    expect((await call(readRule, { params: { id: third.id }, apiKey: account.apiKey })).status).toBe(404);
  });

  it.each([
    ['a backreference', { match: { pattern: '(a)\\1' } }, 'match.pattern'],
    ['a lookahead', { match: { pattern: 'a(?=b)' } }, 'match.pattern'],
    ['a pattern over 500 characters', { match: { pattern: 'a'.repeat(501) } }, 'match.pattern'],
    ['a repetition RE2 will not build', { match: { pattern: '(a{1000}){1000}' } }, 'match.pattern'],
    ['keyword and pattern together', { match: { keyword: 'a', pattern: 'b' } }, 'match.pattern'],
    ['a keyword of two words', { match: { keyword: 'two words' } }, 'match.keyword'],
    ['a prefix that is not E.164', { match: { from_prefix: '44' } }, 'match.from_prefix'],
    ['no action', { actions: [] }, 'actions'],
    ['six actions', { actions: Array.from({ length: 6 }, () => reply('x')) }, 'actions'],
    ['an unknown variable', { actions: [reply('Hi {{name}}')] }, 'actions.0.content'],
    ['a forward to a non-number', { actions: [{ type: 'forward_sms', to: '12345' }] }, 'actions.0.to'],
    ['a forward to a non-email', { actions: [{ type: 'forward_email', to: 'nobody' }] }, 'actions.0.to'],
    ['an unknown action', { actions: [{ type: 'call', to: '+14155550100' }] }, 'actions.0.type'],
    ['an unknown field', { actions: [reply('x')], colour: 'red' }, 'colour'],
  ])('refuses %s at creation, naming the field, and stores nothing', async (_label, body, path) => {
    const account = await createTestAccount(db());
    const res = await call(createRule, {
      body: { name: 'bad', actions: [reply('x')], ...body },
      apiKey: account.apiKey,
    });
    expect(res.status, res.text).toBe(400);
    expect(res.body.errors.map((error: { path: string }) => error.path)).toContain(path);
    expect((await call(listRules, { apiKey: account.apiKey })).body.data).toEqual([]);
  });

  it('accepts what would backtrack catastrophically elsewhere, and runs it in linear time', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    await rule(account, { match: { pattern: '^(a+)+$' }, actions: [reply('matched')] });
    // A backtracking engine takes ages on this; RE2 answers at once (the test would time out otherwise).
    const message = await inbound(account, testNumber(), `${'a'.repeat(1500)}!`);
    expect(message.automation).toBeNull();
    const plain = await inbound(account, testNumber(), 'aaaa');
    expect(plain.automation).toEqual([expect.objectContaining({ result: 'sent' })]);
  });
});

describe('inbound rules acting on inbound messages', () => {
  it('answers a keyword whatever its case and accents, rendering the variables, charged to the group', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const created = await rule(account, {
      match: { keyword: 'Café' },
      actions: [reply('Hi {{from}}, {{phone}} got "{{text}}"')],
    });
    const customer = testNumber();
    const message = await inbound(account, customer, 'CAFE! open today?');
    const [sent] = await outbound(account);
    expect(sent).toMatchObject({
      from: account.phone,
      to: customer,
      content: `Hi ${customer}, ${account.phone} got "CAFE! open today?"`,
      originKind: 'rule',
      originRuleId: created.id,
      originMessageId: message.id,
    });
    expect(message.automation).toEqual([
      { rule_id: created.id, action: 'reply', result: 'sent', message_id: sent!.id },
    ]);
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(9);
    // The record and the origin show through the API.
    const read = await call(readMessage, { params: { id: message.id }, apiKey: account.apiKey });
    expect(read.body.automation).toEqual(message.automation);
    const readReply = await call(readMessage, { params: { id: sent!.id }, apiKey: account.apiKey });
    expect(readReply.body.origin).toEqual({ kind: 'rule', rule_id: created.id, inbound_message_id: message.id });
    // Other first words, and the keyword elsewhere in the text, do not match.
    expect((await inbound(account, customer, 'cafeteria')).automation).toBeNull();
    expect((await inbound(account, customer, 'the café')).automation).toBeNull();
    expect((await inbound(account, testNumber(), 'café')).automation).toEqual([
      expect.objectContaining({ result: 'sent' }),
    ]);
  });

  it('matches a pattern anywhere in the text, and a sender prefix', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    await rule(account, {
      match: { pattern: '(?i)order\\s+#?\\d{4,}', from_prefix: '+1415' },
      actions: [reply('Looking it up')],
    });
    expect((await inbound(account, testNumber(), 'where is my ORDER #12345 please')).automation).toHaveLength(1);
    expect((await inbound(account, testNumber(), 'where is my order')).automation).toBeNull();
    expect((await inbound(account, '+442071838750', 'order 12345')).automation).toBeNull();
  });

  it('answers only for the phones and groups in its scope', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const group = await call(createGroup, { body: { name: 'Support' }, apiKey: account.apiKey });
    const support = await addTestPhone(db(), account, { groupId: group.body.id });
    await call(transfer, { body: { to_group: group.body.id, amount: 5 }, apiKey: account.apiKey });
    await rule(account, { scope: { group_ids: [group.body.id] }, actions: [reply('Support here')] });
    expect((await inbound(account, testNumber(), 'hello')).automation).toBeNull();
    const answered = await inbound(support, testNumber(), 'hello');
    expect(answered.automation).toEqual([expect.objectContaining({ result: 'sent' })]);
    // Charged to the group of the phone that answered.
    expect(await balanceOf(db(), group.body.id)).toBe(4);
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(5);
  });

  it('lets the first matching rule act, and the next only after `continue`', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const keyword = await rule(account, { match: { keyword: 'hi' }, actions: [reply('keyword')] });
    const catchAll = await rule(account, { actions: [reply('catch-all')] });
    await rule(account, { actions: [reply('never')] });
    const ruleIds = (automation: Array<Record<string, unknown>> | null) => automation?.map((entry) => entry.rule_id);
    expect(ruleIds((await inbound(account, testNumber(), 'hi there')).automation)).toEqual([keyword.id]);
    expect(ruleIds((await inbound(account, testNumber(), 'other')).automation)).toEqual([catchAll.id]);
    await call(patchRule, {
      method: 'PATCH',
      params: { id: keyword.id },
      body: { continue: true },
      apiKey: account.apiKey,
    });
    expect(ruleIds((await inbound(account, testNumber(), 'hi again')).automation)).toEqual([keyword.id, catchAll.id]);
    await call(patchRule, {
      method: 'PATCH',
      params: { id: keyword.id },
      body: { enabled: false },
      apiKey: account.apiKey,
    });
    expect(ruleIds((await inbound(account, testNumber(), 'hi')).automation)).toEqual([catchAll.id]);
  });

  it('forwards by SMS (charged to the receiving phone’s group) and by email (the dev inbox)', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const boss = testNumber();
    const email = account.email;
    await rule(account, {
      actions: [
        { type: 'forward_sms', to: boss },
        { type: 'forward_email', to: email },
      ],
    });
    const customer = testNumber();
    const message = await inbound(account, customer, 'Is the order ready?');
    const [forwarded] = await outbound(account);
    expect(forwarded).toMatchObject({
      from: account.phone,
      to: boss,
      content: `From ${customer}: Is the order ready?`,
      originKind: 'rule',
    });
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(9);
    expect(await runEmailBatch(db())).toEqual(['sent']);
    const mail = await db().select().from(devInbox).where(eq(devInbox.to, email));
    expect(mail).toEqual([
      expect.objectContaining({
        subject: `SMS from ${customer} to ${account.phone}`,
        text: expect.stringContaining('Is the order ready?'),
      }),
    ]);
    expect(message.automation).toEqual([
      expect.objectContaining({ action: 'forward_sms', result: 'sent', message_id: forwarded!.id }),
      expect.objectContaining({ action: 'forward_email', result: 'sent' }),
    ]);
  });

  it('skips an SMS action it cannot pay for, and records why', async () => {
    const account = await createTestAccount(db(), { credits: 0 });
    await rule(account, { actions: [reply('Thanks')] });
    const message = await inbound(account, testNumber(), 'hello');
    expect(message.automation).toEqual([expect.objectContaining({ result: 'skipped', reason: 'no_credit' })]);
    expect(await outbound(account)).toEqual([]);
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(0);
  });

  it('sends at most AUTO_REPLY_LIMIT (3) automatic SMS to one number in an hour', async () => {
    const account = await createTestAccount(db(), { credits: 20 });
    await rule(account, { actions: [reply('auto')] });
    const bot = testNumber();
    const results = [];
    for (let i = 0; i < 4; i += 1) results.push((await inbound(account, bot, `message ${i}`)).automation?.[0]);
    expect(results.map((entry) => entry?.result)).toEqual(['sent', 'sent', 'sent', 'skipped']);
    expect(results[3]).toMatchObject({ reason: 'limit_reached' });
    expect(await outbound(account)).toHaveLength(3);
    // Another number has its own count.
    expect((await inbound(account, testNumber(), 'hi')).automation?.[0]?.result).toBe('sent');
    // The hour passes.
    await db()
      .update(automaticSends)
      .set({ at: new Date(Date.now() - 3_700_000) });
    expect((await inbound(account, bot, 'later')).automation?.[0]?.result).toBe('sent');
  });

  it('holds the limit when one number’s messages arrive at once', async () => {
    const account = await createTestAccount(db(), { credits: 20 });
    await rule(account, { actions: [reply('auto')] });
    const bot = testNumber();
    const all = await Promise.all(Array.from({ length: 8 }, (_, i) => inbound(account, bot, `burst ${i}`)));
    const results = all.map((message) => message.automation?.[0]?.result);
    expect(results.filter((result) => result === 'sent')).toHaveLength(3);
    expect(results.filter((result) => result === 'skipped')).toHaveLength(5);
    expect(await outbound(account)).toHaveLength(3);
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(17);
  });

  it('stops two of the account’s phones answering each other', async () => {
    const account = await createTestAccount(db(), { credits: 20 });
    const other = await addTestPhone(db(), account);
    await rule(account, { actions: [reply('Got it')] });
    // A person texts the first phone from the second; its answer reaches the second phone, and so on.
    let text = 'hello';
    let [to, from] = [account as { deviceKey: string; phone: string }, other as { deviceKey: string; phone: string }];
    const outcomes = [];
    for (let hop = 0; hop < 6; hop += 1) {
      const message = await inbound(to, from.phone, text);
      const entry = message.automation?.[0];
      outcomes.push(entry?.reason ?? entry?.result);
      if (entry?.result !== 'sent') break;
      const [answer] = await db()
        .select()
        .from(messages)
        .where(eq(messages.id, entry.message_id as string));
      text = answer!.content;
      [to, from] = [from, to];
    }
    expect(outcomes).toEqual(['sent', 'sent_by_automation']);
    expect(await outbound(account)).toHaveLength(1);
  });

  it('stops an exchange with another gateway at the limit', async () => {
    const account = await createTestAccount(db(), { credits: 20 });
    await rule(account, { actions: [reply('Auto: we got your message')] });
    const gateway = testNumber();
    const outcomes = [];
    for (let hop = 0; hop < 6; hop += 1) {
      outcomes.push((await inbound(account, gateway, `Auto-reply ${hop}: thanks`)).automation?.[0]?.result);
    }
    expect(outcomes).toEqual(['sent', 'sent', 'sent', 'skipped', 'skipped', 'skipped']);
  });

  it('replies once to an inbound report repeated by the phone', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    await rule(account, { actions: [reply('Once')] });
    const customer = testNumber();
    const first = await inbound(account, customer, 'hi', 'sms-42');
    const again = await inbound(account, customer, 'hi', 'sms-42');
    expect(again.id).toBe(first.id);
    expect(await outbound(account)).toHaveLength(1);
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(9);
  });

  it('handles STOP as an opt-out and never as a rule’s match', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    await rule(account, { actions: [reply('catch-all')] });
    await rule(account, { match: { keyword: 'stop' }, actions: [reply('keyword stop')] });
    const customer = testNumber();
    const message = await inbound(account, customer, 'STOP');
    expect(message.automation).toBeNull();
    expect(await outbound(account)).toEqual([]);
    const opted = await db().select().from(optOuts).where(eq(optOuts.accountId, account.accountId));
    expect(opted.map((row) => row.phone)).toEqual([customer]);
    // And an opted-out number is not answered by rules either.
    expect((await inbound(account, customer, 'one more thing')).automation).toEqual([
      expect.objectContaining({ result: 'skipped', reason: 'opted_out' }),
    ]);
  });

  it('does not answer a short code or an alphanumeric sender', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    await rule(account, { actions: [reply('hi')] });
    expect((await inbound(account, 'MyBank', 'Your code is 1234')).automation).toEqual([
      expect.objectContaining({ result: 'skipped', reason: 'not_a_phone_number' }),
    ]);
  });

  it('answers HELP with the account’s text before any rule, when it is set', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    await rule(account, { actions: [reply('catch-all')] });
    expect((await call(readSettings, { apiKey: account.apiKey })).body).toEqual({
      help_reply: null,
      auto_reply_limit: 3,
      auto_sms_account_hourly_limit: 100,
    });
    expect((await inbound(account, testNumber(), 'help')).automation?.[0]).toMatchObject({
      rule_id: expect.any(String),
    });
    const set = await call(patchSettings, {
      method: 'PATCH',
      body: { help_reply: 'Acme: reply STOP to opt out.' },
      apiKey: account.apiKey,
    });
    expect(set.body.help_reply).toBe('Acme: reply STOP to opt out.');
    const asked = await inbound(account, testNumber(), ' Info ');
    expect(asked.automation).toEqual([expect.objectContaining({ rule_id: null, action: 'help', result: 'sent' })]);
    const sent = (await outbound(account)).at(-1);
    expect(sent).toMatchObject({ content: 'Acme: reply STOP to opt out.', originKind: 'help' });
  });

  it('hands the message to a webhook that does not subscribe to message.received', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const hook = await createWebhook(db(), account.accountId, {
      url: 'https://hooks.example.test/rules',
      events: ['message.failed'],
    });
    await rule(account, { actions: [{ type: 'webhook', webhook_id: hook.id }] });
    const message = await inbound(account, testNumber(), 'for the CRM');
    expect(message.automation).toEqual([
      { rule_id: expect.any(String), action: 'webhook', result: 'sent', webhook_id: hook.id },
    ]);
    const queued = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, hook.id));
    expect(queued).toEqual([expect.objectContaining({ eventType: 'message.received', status: 'pending' })]);
    // A webhook deleted since the rule was made: skipped, recorded.
    await db().delete(webhooks).where(eq(webhooks.id, hook.id));
    expect((await inbound(account, testNumber(), 'again')).automation).toEqual([
      expect.objectContaining({ result: 'skipped', reason: 'webhook_not_found' }),
    ]);
  });
});

describe('POST /api/v1/inbound-rules/test', () => {
  it('says what would happen, rendered and costed, and writes nothing', async () => {
    const account = await createTestAccount(db(), { credits: 1 });
    const created = await rule(account, {
      match: { keyword: 'hours' },
      actions: [reply('Open 9–5, {{from}}'), { type: 'forward_sms', to: testNumber() }],
    });
    const customer = testNumber();
    const count = async () => ({
      messages: (await db().select().from(messages).where(eq(messages.accountId, account.accountId))).length,
      ledger: (await db().select().from(creditLedger).where(eq(creditLedger.accountId, account.accountId))).length,
      sends: (await db().select().from(automaticSends).where(eq(automaticSends.accountId, account.accountId))).length,
    });
    const before = await count();
    const res = await call(tryRules, {
      body: { phone: account.phone, from: customer, text: 'Hours?' },
      apiKey: account.apiKey,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      opt_out: null,
      help: false,
      credits: 1,
      rules: [
        {
          rule_id: created.id,
          name: 'rule',
          actions: [
            {
              action: 'reply',
              would: 'send',
              to: customer,
              content: `Open 9–5, ${customer}`,
              segments: 1,
              encoding: 'UCS-2',
              credits: 1,
            },
            expect.objectContaining({ action: 'forward_sms', would: 'skip', reason: 'no_credit' }),
          ],
        },
      ],
    });
    expect(await count()).toEqual(before);
    const stop = await call(tryRules, {
      body: { phone: account.phone, from: customer, text: 'stop' },
      apiKey: account.apiKey,
    });
    expect(stop.body).toMatchObject({ opt_out: 'opted_out', rules: [] });
    const none = await call(tryRules, {
      body: { phone: account.phone, from: customer, text: 'nothing' },
      apiKey: account.apiKey,
    });
    expect(none.body).toMatchObject({ opt_out: null, help: false, rules: [], credits: 0 });
    const notMine = await call(tryRules, {
      body: { phone: testNumber(), from: customer, text: 'x' },
      apiKey: account.apiKey,
    });
    expect(notMine.status).toBe(404);
  });
});

describe('replies from the webhook response', () => {
  let receiver: Receiver;
  let account: TestAccount;
  let hookId: string;

  beforeAll(async () => {
    const certs = createTestCertificates();
    process.env.NODE_EXTRA_CA_CERTS = certs.caFile;
    receiver = await startReceiver(certs);
  });
  afterAll(async () => {
    await receiver?.close();
  });
  beforeEach(async () => {
    // Each test's webhook is the only enabled one.
    await db().update(webhooks).set({ enabled: false });
    account = await createTestAccount(db(), { credits: 10 });
    const created = await call(createWebhookRoute, {
      body: {
        url: receiver.url(`/replies/${crypto.randomUUID()}`),
        events: ['message.received'],
        accept_replies: true,
      },
      apiKey: account.apiKey,
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.accept_replies).toBe(true);
    hookId = created.body.id;
  });

  const json = (body: unknown) => ({
    status: 200,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify(body),
  });
  const deliver = () => runDeliveryBatch(db(), { now: new Date(Date.now() + 1000), limit: 50 });
  const attemptsOf = async () =>
    db()
      .select({ replyResult: webhookAttempts.replyResult, statusCode: webhookAttempts.statusCode })
      .from(webhookAttempts)
      .innerJoin(
        webhookDeliveries,
        and(
          eq(webhookDeliveries.accountId, webhookAttempts.accountId),
          eq(webhookDeliveries.id, webhookAttempts.deliveryId),
        ),
      )
      .where(eq(webhookDeliveries.webhookId, hookId))
      .orderBy(webhookAttempts.id);

  it('sends the reply once, across a retry and a manual resend', async () => {
    receiver.respond(() => json({ reply: { content: 'Thanks, a person will call you.' } }));
    const customer = testNumber();
    const message = await inbound(account, customer, 'call me');
    await deliver();
    const [sent] = await outbound(account);
    expect(sent).toMatchObject({
      from: account.phone,
      to: customer,
      content: 'Thanks, a person will call you.',
      originKind: 'webhook_reply',
      originMessageId: message.id,
    });
    // The worker died before recording its attempt: the delivery is attempted again.
    const [delivery] = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, hookId));
    await db()
      .update(webhookDeliveries)
      .set({ status: 'pending', lockedUntil: null })
      .where(eq(webhookDeliveries.id, delivery!.id));
    await deliver();
    await resendDelivery(db(), account.accountId, hookId, delivery!.id);
    await deliver();
    expect(await outbound(account)).toHaveLength(1);
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(9);
    expect((await attemptsOf()).map((attempt) => attempt.replyResult)).toEqual([
      `reply sent as message ${sent!.id}`,
      'reply not sent again: this message was answered already',
      'reply not sent again: this message was answered already',
    ]);
    const read = await call(readMessage, { params: { id: message.id }, apiKey: account.apiKey });
    expect(read.body.automation).toEqual([
      { rule_id: null, action: 'webhook_reply', result: 'sent', message_id: sent!.id, webhook_id: hookId },
    ]);
  });

  it.each([
    ['an empty content', json({ reply: { content: '   ' } }), /^malformed reply: reply\.content/],
    ['a content that is not text', json({ reply: { content: 42 } }), /^malformed reply: reply\.content/],
    ['a reply that is not an object', json({ reply: 'hi' }), /^malformed reply: reply/],
    [
      'JSON that does not parse',
      { status: 200, headers: { 'content-type': 'application/json' }, body: '{"reply": {' },
      /^malformed reply: the answer is not valid JSON/,
    ],
  ])('records %s on the delivery and sends nothing', async (_label, answer, expected) => {
    receiver.respond(() => answer);
    const message = await inbound(account, testNumber(), 'hello');
    await deliver();
    expect(await outbound(account)).toEqual([]);
    const [attempt] = await attemptsOf();
    expect(attempt).toMatchObject({ statusCode: 200, replyResult: expect.stringMatching(expected) });
    expect(
      (await call(readMessage, { params: { id: message.id }, apiKey: account.apiKey })).body.automation,
    ).toBeNull();
  });

  it.each([
    [
      'a plain-text answer',
      { status: 200, headers: { 'content-type': 'text/plain' }, body: '{"reply":{"content":"x"}}' },
    ],
    ['JSON without a reply', json({ ok: true })],
    ['a reply on a 500', { ...json({ reply: { content: 'x' } }), status: 500 }],
  ])('ignores %s', async (_label, answer) => {
    receiver.respond(() => answer);
    await inbound(account, testNumber(), 'hello');
    await deliver();
    expect(await outbound(account)).toEqual([]);
    expect((await attemptsOf())[0]?.replyResult).toBeNull();
  });

  it('counts replies against the same limit as rules', async () => {
    receiver.respond(() => json({ reply: { content: 'bot answer' } }));
    await rule(account, { actions: [reply('rule answer')] });
    const customer = testNumber();
    await inbound(account, customer, 'one');
    await inbound(account, customer, 'two');
    await deliver();
    // Two rule replies, then the first webhook reply reaches the limit of 3 and the second is skipped.
    expect(await outbound(account)).toHaveLength(3);
    expect((await attemptsOf()).map((attempt) => attempt.replyResult).sort()).toEqual([
      expect.stringMatching(/^reply sent as message/),
      'reply skipped: limit_reached',
    ]);
  });

  it('refuses accept_replies on a webhook that does not receive messages', async () => {
    const res = await call(createWebhookRoute, {
      body: { url: receiver.url('/x'), events: ['message.sent'], accept_replies: true },
      apiKey: account.apiKey,
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ path: 'accept_replies' })]);
  });
});
