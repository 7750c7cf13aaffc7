import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { POST as received } from '@/app/api/v1/device/messages/received/route';
import { PATCH as patchRule, GET as readRule } from '@/app/api/v1/inbound-rules/[id]/route';
import { POST as createRule } from '@/app/api/v1/inbound-rules/route';
import { POST as tryRules } from '@/app/api/v1/inbound-rules/test/route';
import { inboundRules, messages } from '@/db/schema';
import {
  MATCH_BUDGET_MS,
  MAX_MATCHED_TEXT,
  MAX_PATTERN_INSTRUCTIONS,
  matchBudget,
  patternMatches,
  patternProblem,
  ruleMatches,
} from '@/lib/automation/match';
import { MAX_RULES_PER_ACCOUNT } from '@/lib/automation/schemas';
import { createTestAccount, type TestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { captureLogs } from '../logs';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();
const logs = captureLogs();

/**
 * Issue 40's pattern: `(?:`, then `.?` 200 times, then `){1000}[^a]`: 414 characters that compile
 * to 400,003 instructions (about 80 MB), and take some 20 s to match against 1,600 characters.
 */
const ISSUE_PATTERN = `(?:${'.?'.repeat(200)}){1000}[^a]`;

/** The slowest pattern under the limit we know of: 493 instructions, every one alive at every character of 'aaa…'. */
const WORST_ACCEPTED = '(?:.?){245}[^a]';

const reply = (content: string) => ({ type: 'reply', content });

async function inbound(account: TestAccount, content: string) {
  const res = await call(received, {
    body: { from: testNumber(), content, device_message_id: crypto.randomUUID() },
    apiKey: account.deviceKey,
  });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string; automation: Array<Record<string, unknown>> | null };
}

/** A rule stored as it could have been before patterns had a size limit. */
async function storeRuleDirectly(account: TestAccount, pattern: string, position: number) {
  await db()
    .insert(inboundRules)
    .values({
      accountId: account.accountId,
      name: 'old',
      position,
      pattern,
      actions: [{ type: 'reply', content: 'old' }],
    });
}

describe('the size of an inbound rule’s pattern', () => {
  it('is the issue’s 414-character pattern, refused without building it', () => {
    expect(ISSUE_PATTERN).toHaveLength(414);
    const start = performance.now();
    expect(patternProblem(ISSUE_PATTERN)).toMatch(/^too large/);
    expect(performance.now() - start).toBeLessThan(100);
  });

  it('refuses the issue’s pattern at creation and on update, with a 400 naming match.pattern', async () => {
    const account = await createTestAccount(db());
    const created = await call(createRule, {
      body: { name: 'pump', match: { pattern: ISSUE_PATTERN }, actions: [reply('x')] },
      apiKey: account.apiKey,
    });
    expect(created.status, created.text).toBe(400);
    expect(created.body.errors).toEqual([
      expect.objectContaining({
        path: 'match.pattern',
        message: expect.stringContaining(`more than ${MAX_PATTERN_INSTRUCTIONS} instructions`),
      }),
    ]);
    const rule = await call(createRule, {
      body: { name: 'fine', match: { pattern: WORST_ACCEPTED }, actions: [reply('x')] },
      apiKey: account.apiKey,
    });
    expect(rule.status, rule.text).toBe(201);
    const patched = await call(patchRule, {
      method: 'PATCH',
      params: { id: rule.body.id },
      body: { match: { pattern: ISSUE_PATTERN } },
      apiKey: account.apiKey,
    });
    expect(patched.status, patched.text).toBe(400);
    expect(patched.body.errors.map((error: { path: string }) => error.path)).toEqual(['match.pattern']);
    const read = await call(readRule, { params: { id: rule.body.id }, apiKey: account.apiKey });
    expect(read.body.match.pattern).toBe(WORST_ACCEPTED);
  });

  it.each([
    ['one repetition past the limit', '(?:.?){250}[^a]'],
    ['nested repetitions', '(?:(?:a?){30}){30}'],
    ['a quoted run repeated', '(?:\\Qabcdef\\E){100}'],
  ])('refuses %s', (_label, pattern) => {
    expect(patternProblem(pattern)).toMatch(/^too large/);
  });

  it.each([
    '(?i)order\\s+#?\\d{4,}',
    '\\d{1,100}',
    '^.{0,160}$',
    '(?i)\\b(order|booking|reservation)\\s*(no\\.?|number|#)?\\s*[a-z0-9]{6,12}\\b',
    '^(a+)+$',
    WORST_ACCEPTED,
  ])('accepts %s', (pattern) => {
    expect(patternProblem(pattern)).toBeNull();
  });

  it('searches the first MAX_MATCHED_TEXT characters of a text', () => {
    expect(patternMatches('x', `${'a'.repeat(MAX_MATCHED_TEXT - 1)}x`)).toBe(true);
    expect(patternMatches('x', `${'a'.repeat(MAX_MATCHED_TEXT)}x`)).toBe(false);
  });
});

describe('a stored pattern past the limit (written before it existed)', () => {
  it('matches nothing, is never built, and is reported once', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    await storeRuleDirectly(account, ISSUE_PATTERN, 1);
    await call(createRule, { body: { name: 'catch-all', actions: [reply('catch-all')] }, apiKey: account.apiKey });
    const start = performance.now();
    const first = await inbound(account, 'b'.repeat(1600));
    const second = await inbound(account, 'b'.repeat(1600));
    expect(performance.now() - start).toBeLessThan(2000);
    // The catch-all after it acts: the old rule is passed over.
    for (const message of [first, second]) {
      expect(message.automation).toEqual([expect.objectContaining({ action: 'reply', result: 'sent' })]);
    }
    const [sent] = await db()
      .select({ content: messages.content })
      .from(messages)
      .where(and(eq(messages.accountId, account.accountId), eq(messages.direction, 'outbound')));
    expect(sent?.content).toBe('catch-all');
    const warnings = logs.entries().filter((entry) => entry.pattern === ISSUE_PATTERN);
    expect(warnings).toEqual([expect.objectContaining({ level: 40, reason: expect.stringMatching(/^too large/) })]);
  });

  it('matches nothing in POST /api/v1/inbound-rules/test either', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    await storeRuleDirectly(account, `${ISSUE_PATTERN}|b`, 1);
    const start = performance.now();
    const res = await call(tryRules, {
      body: { phone: account.phone, from: testNumber(), text: 'b'.repeat(1600) },
      apiKey: account.apiKey,
    });
    expect(performance.now() - start).toBeLessThan(2000);
    expect(res.status, res.text).toBe(200);
    expect(res.body.rules).toEqual([]);
  });
});

/**
 * The most processor time the process spent between two ticks of a 5 ms timer, up to the first
 * tick after `stop()`: how long the event loop was held, whatever else the machine is busy with
 * (wall-clock gaps grow when other processes take the processor).
 */
function watchEventLoop(): { stop: () => Promise<number> } {
  let last = process.cpuUsage();
  let longest = 0;
  const waiting: Array<() => void> = [];
  const timer = setInterval(() => {
    const used = process.cpuUsage(last);
    longest = Math.max(longest, (used.user + used.system) / 1000);
    last = process.cpuUsage();
    for (const resolve of waiting.splice(0)) resolve();
  }, 5);
  return {
    stop: async () => {
      await new Promise<void>((resolve) => waiting.push(resolve));
      clearInterval(timer);
      return longest;
    },
  };
}

/** Distinct patterns of WORST_ACCEPTED's size and speed, so each is compiled when first matched. */
const slowPatterns = (tag: number) =>
  Array.from(
    { length: MAX_RULES_PER_ACCOUNT },
    (_, i) => `(?:.?){245}[^a\\x{${(0x1000 * tag + 0x100 + i).toString(16)}}]`,
  );

describe('the time an inbound message’s patterns take', () => {
  it('holds the event loop for one pattern at a time, and stops at the budget', async () => {
    const rules = slowPatterns(1).map((pattern) => ({
      keyword: null,
      pattern,
      fromPrefix: null,
      scopePhoneIds: [],
      scopeGroupIds: [],
    }));
    const facts = { phoneId: crypto.randomUUID(), groupId: 1, from: testNumber(), text: 'a'.repeat(1600) };
    // V8 compiles the engine's code on its first runs, as in a server that has been up a while.
    patternMatches(WORST_ACCEPTED, facts.text);
    const budget = matchBudget();
    const loop = watchEventLoop();
    const start = performance.now();
    // As planAutomation tries an account's rules.
    for (const rule of rules) expect(await ruleMatches(rule, facts, budget)).toBe(false);
    const elapsed = performance.now() - start;
    const longestBlock = await loop.stop();
    // One pattern's compile and match (some 40 ms), where all of them in a row take seconds.
    expect(longestBlock).toBeLessThan(200);
    expect(budget.spentMs).toBeGreaterThanOrEqual(MATCH_BUDGET_MS);
    expect(elapsed).toBeLessThan(MATCH_BUDGET_MS + 1000);
    expect(logs.entries()).toEqual([
      expect.objectContaining({ level: 40, msg: 'inbound rules: pattern time spent, later patterns skipped' }),
    ]);
  });

  it('keeps an inbound message with the most rules of the slowest patterns within the budget', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    for (const pattern of slowPatterns(2)) {
      const res = await call(createRule, {
        body: { name: 'slow', match: { pattern }, actions: [reply('x')] },
        apiKey: account.apiKey,
      });
      expect(res.status, res.text).toBe(201);
    }
    logs.clear();
    const start = performance.now();
    const message = await inbound(account, 'a'.repeat(1600));
    expect(performance.now() - start).toBeLessThan(MATCH_BUDGET_MS + 1500);
    expect(message.automation).toBeNull();
    expect(logs.entries()).toContainEqual(
      expect.objectContaining({ msg: 'inbound rules: pattern time spent, later patterns skipped' }),
    );
  });
});
