import { afterEach, describe, expect, it, vi } from 'vitest';
import { POST as received } from '@/app/api/v1/device/messages/received/route';
import { PATCH as patchRule } from '@/app/api/v1/inbound-rules/[id]/route';
import { POST as createRule } from '@/app/api/v1/inbound-rules/route';
import { POST as tryRules } from '@/app/api/v1/inbound-rules/test/route';
import { renderReply, type Step } from '@/lib/automation/decide';
import { LastingSkips } from '@/lib/automation/run';
import { MAX_CONTENT_LENGTH } from '@/lib/messages/limits';
import { createTestAccount, type TestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

afterEach(() => {
  vi.unstubAllEnvs();
});

const reply = (content: string) => ({ type: 'reply', content });

async function inbound(who: { deviceKey: string }, from: string, content: string) {
  const res = await call(received, {
    body: { from, content, device_message_id: crypto.randomUUID() },
    apiKey: who.deviceKey,
  });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; automation: Array<Record<string, unknown>> | null };
}

async function rule(account: TestAccount, body: Record<string, unknown>) {
  return call(createRule, { body: { name: 'rule', ...body }, apiKey: account.apiKey });
}

describe('a reply’s rendering', () => {
  const context = { accountId: '', phoneId: '', groupId: 1, phone: '+14155550100', from: '+14155550999' };

  it('stops at the length limit: 200 × {{text}} of a 1,600-character text is 1,600 characters', () => {
    const text = renderReply('{{text}}'.repeat(200), { ...context, text: '€'.repeat(1600) });
    expect(text).toHaveLength(MAX_CONTENT_LENGTH);
    expect(text.endsWith('…')).toBe(true);
  });

  it('fills every variable of a short reply, and cuts a 10,000-character text once', () => {
    expect(renderReply('Hi {{ from }}, {{text}} to {{phone}} {{x}}', { ...context, text: 'ok' })).toBe(
      'Hi +14155550999, ok to +14155550100 {{x}}',
    );
    const long = renderReply('Got: {{text}}', { ...context, text: 'a'.repeat(10_000) });
    expect(long).toBe(`Got: ${'a'.repeat(MAX_CONTENT_LENGTH - 6)}…`);
  });
});

describe('the plan’s cap on rule actions', () => {
  it('refuses with 403 PLAN_LIMIT_REACHED a rule or a change that passes PLAN_FREE_RULE_ACTIONS', async () => {
    vi.stubEnv('PLAN_FREE_RULE_ACTIONS', '7');
    const account = await createTestAccount(db());
    const first = await rule(account, { actions: Array(5).fill(reply('a')) });
    expect(first.status, first.text).toBe(201);
    const over = await rule(account, { actions: Array(3).fill(reply('b')) });
    expect(over.status, over.text).toBe(403);
    expect(over.body).toMatchObject({ code: 'PLAN_LIMIT_REACHED', plan: 'free', limit: 7, resource: 'rule_actions' });
    const second = await rule(account, { actions: Array(2).fill(reply('b')) });
    expect(second.status, second.text).toBe(201);
    const grown = await call(patchRule, {
      method: 'PATCH',
      params: { id: second.body.id },
      body: { actions: Array(3).fill(reply('b')) },
      apiKey: account.apiKey,
    });
    expect(grown.status, grown.text).toBe(403);
    // Fewer actions are always allowed, even past a lowered cap.
    vi.stubEnv('PLAN_FREE_RULE_ACTIONS', '1');
    const shrunk = await call(patchRule, {
      method: 'PATCH',
      params: { id: first.body.id },
      body: { actions: [reply('a')] },
      apiKey: account.apiKey,
    });
    expect(shrunk.status, shrunk.text).toBe(200);
  });

  it('is the pro plan’s on a pro account', async () => {
    vi.stubEnv('PLAN_FREE_RULE_ACTIONS', '1');
    vi.stubEnv('PLAN_PRO_RULE_ACTIONS', '10');
    const account = await createTestAccount(db(), { plan: 'pro' });
    expect((await rule(account, { actions: Array(5).fill(reply('a')) })).status).toBe(201);
    expect((await rule(account, { actions: Array(5).fill(reply('a')) })).status).toBe(201);
    expect((await rule(account, { actions: [reply('a')] })).status).toBe(403);
  });
});

describe('the work budget of one inbound message', () => {
  it('runs AUTOMATION_STEPS_PER_MESSAGE actions and records the others as step_budget_reached', async () => {
    vi.stubEnv('AUTOMATION_STEPS_PER_MESSAGE', '3');
    vi.stubEnv('AUTO_REPLY_LIMIT', '100');
    const account = await createTestAccount(db(), { credits: 100 });
    for (let i = 0; i < 2; i += 1) {
      const res = await rule(account, { continue: true, actions: Array(5).fill(reply('{{text}}')) });
      expect(res.status, res.text).toBe(201);
    }
    const from = testNumber();
    const message = await inbound(account, from, 'hello');
    expect(message.automation?.map((entry) => entry.result ?? '')).toEqual([
      ...Array(3).fill('sent'),
      ...Array(7).fill('skipped'),
    ]);
    for (const entry of message.automation?.slice(3) ?? []) {
      expect(entry).toMatchObject({ action: 'reply', reason: 'step_budget_reached' });
    }
    const preview = await call(tryRules, { body: { phone: account.phone, from, text: 'x' }, apiKey: account.apiKey });
    expect(preview.status, preview.text).toBe(200);
    const planned = preview.body.rules.flatMap((entry: { actions: unknown[] }) => entry.actions);
    expect(planned).toHaveLength(10);
    expect(planned.slice(3)).toEqual(Array(7).fill({ action: 'reply', would: 'skip', reason: 'step_budget_reached' }));
  });

  it('skips at once, as limit_reached, the actions after the counterpart’s limit is met', async () => {
    vi.stubEnv('AUTO_REPLY_LIMIT', '2');
    const account = await createTestAccount(db(), { credits: 100 });
    expect((await rule(account, { actions: Array(5).fill(reply('hi')) })).status).toBe(201);
    const message = await inbound(account, testNumber(), 'hello');
    expect(message.automation?.map((entry) => entry.reason ?? entry.result)).toEqual([
      'sent',
      'sent',
      'limit_reached',
      'limit_reached',
      'limit_reached',
    ]);
  });
});

describe('the skips that last for the rest of a message', () => {
  const sms: Step = { ruleId: null, ruleName: 'r', index: 0, action: 'reply', sms: { to: '+1', content: 'x' } };
  const email: Step = {
    ruleId: null,
    ruleName: 'r',
    index: 1,
    action: 'forward_email',
    email: { to: 'a@example.test', subject: 's', text: 't' },
  };
  const webhook: Step = { ruleId: null, ruleName: 'r', index: 2, action: 'webhook', webhookId: 'w' };

  it('a counterpart’s limit stops its SMS and emails; the account’s SMS limit only SMS; webhooks run on', () => {
    const counterpart = new LastingSkips();
    expect(counterpart.reasonFor(sms)).toBeUndefined();
    counterpart.met(sms, 'limit_reached');
    expect([counterpart.reasonFor(sms), counterpart.reasonFor(email), counterpart.reasonFor(webhook)]).toEqual([
      'limit_reached',
      'limit_reached',
      undefined,
    ]);
    const account = new LastingSkips();
    account.met(sms, 'account_limit_reached');
    account.met(sms, 'opted_out');
    expect([account.reasonFor(sms), account.reasonFor(email)]).toEqual(['account_limit_reached', undefined]);
    const emails = new LastingSkips();
    emails.met(email, 'email_not_confirmed');
    expect(emails.reasonFor(email)).toBeUndefined();
    emails.met(email, 'email_limit_reached');
    expect([emails.reasonFor(email), emails.reasonFor(sms)]).toEqual(['email_limit_reached', undefined]);
  });
});
