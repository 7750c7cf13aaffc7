import { asc, eq, inArray, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { GET as readBulk } from '@/app/api/v1/bulk-messages/[id]/route';
import { POST as sendBulk } from '@/app/api/v1/bulk-messages/route';
import { POST as reportStatus } from '@/app/api/v1/device/messages/[id]/status/route';
import { POST as claim } from '@/app/api/v1/device/outbox/claim/route';
import { creditLedger, messageStatusHistory, messages, phoneGroups, phones } from '@/db/schema';
import { MAX_CONTENT_LENGTH, MAX_RENDERED_TOTAL } from '@/lib/messages/limits';
import { describeAuthCases } from '../auth-cases';
import { createTestAccount, sharedTestAccount, type TestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

const { account, fixture } = sharedTestAccount(db, { credits: 5000 });

/** `count` distinct valid numbers. */
function numbers(count: number, from = 1000): string[] {
  return Array.from({ length: count }, (_, i) => `+1415555${from + i}`);
}

function bulkAs(who: TestAccount, body: Record<string, unknown>) {
  return call(sendBulk, { body: { from: who.phone, content: 'Sale today', ...body }, apiKey: who.apiKey });
}

async function balanceOf(groupId: number): Promise<number> {
  const [group] = await db()
    .select({ balance: phoneGroups.balance })
    .from(phoneGroups)
    .where(eq(phoneGroups.id, groupId));
  return group!.balance;
}

describeAuthCases('POST /api/v1/bulk-messages', {
  handler: sendBulk,
  request: () => ({ body: { from: account.phone, recipients: [testNumber()], content: 'x' } }),
  accepts: 'account',
  fixture,
});
describeAuthCases('GET /api/v1/bulk-messages/{id}', {
  handler: readBulk,
  request: { params: { id: crypto.randomUUID() } },
  accepts: 'account',
  fixture,
});

describe('POST /api/v1/bulk-messages', () => {
  it('queues one message per distinct recipient, charged all at once, with a ledger row each', async () => {
    const sender = await createTestAccount(db(), { credits: 10 });
    const res = await bulkAs(sender, { recipients: ['+14155550101', '+1 415 555 0102', '+14155550101'] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ count: 2, segments: 1, encoding: 'GSM-7' });
    expect(res.body.message_ids).toHaveLength(2);
    const rows = await db().select().from(messages).where(inArray(messages.id, res.body.message_ids));
    expect(rows.map((r) => r.to).sort()).toEqual(['+14155550101', '+14155550102']);
    expect(
      rows.every((r) => r.bulkId === res.body.id && r.status === 'queued' && r.groupId === sender.defaultGroupId),
    ).toBe(true);
    expect(await balanceOf(sender.defaultGroupId)).toBe(8);
    const charges = await db()
      .select()
      .from(creditLedger)
      .where(eq(creditLedger.kind, 'message_charge'))
      .orderBy(asc(creditLedger.id));
    const mine = charges.filter((c) => c.groupId === sender.defaultGroupId);
    expect(mine.map((c) => [c.amount, c.balanceAfter])).toEqual([
      [-1, 9],
      [-1, 8],
    ]);
    expect(new Set(mine.map((c) => c.messageId))).toEqual(new Set(res.body.message_ids));
    const history = await db()
      .select()
      .from(messageStatusHistory)
      .where(inArray(messageStatusHistory.messageId, res.body.message_ids));
    expect(history.map((h) => h.status)).toEqual(['queued', 'queued']);
  });

  it('sends to 1,000 recipients in one call', async () => {
    const before = await balanceOf(account.defaultGroupId);
    const res = await bulkAs(account, { recipients: numbers(1000), content: '€ off today' });
    expect(res.status).toBe(201);
    expect(res.body.count).toBe(1000);
    expect(await balanceOf(account.defaultGroupId)).toBe(before - 1000);
    const [row] = await db()
      .select({ n: sql<number>`count(*)::int` })
      .from(messages)
      .where(eq(messages.bulkId, res.body.id));
    expect(Number(row?.n)).toBe(1000);
  });

  it('names every invalid recipient by its index', async () => {
    const recipients = numbers(5);
    recipients[1] = 'not a number';
    recipients[3] = '+1';
    const res = await bulkAs(account, { recipients });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(['recipients.1', 'recipients.3']);
  });

  it('stores what the bulk shares on each of its messages: schedule, expiry, priority, SIM, group', async () => {
    const sendAt = new Date(Date.now() + 3_600_000);
    sendAt.setMilliseconds(0);
    const sender = await createTestAccount(db(), { credits: 10 });
    const recipients = numbers(3, 7000);
    const res = await call(sendBulk, {
      body: {
        from_group: sender.defaultGroupId,
        recipients,
        content: 'Later',
        send_at: sendAt.toISOString(),
        ttl_s: 7200,
        priority: 'high',
        sim: 2,
      },
      apiKey: sender.apiKey,
    });
    expect(res.status).toBe(201);
    const rows = await db().select().from(messages).where(inArray(messages.id, res.body.message_ids));
    expect(rows.map((r) => r.to).sort()).toEqual(recipients);
    for (const row of rows) {
      expect(row).toMatchObject({
        accountId: sender.accountId,
        phoneId: sender.phoneId,
        from: sender.phone,
        groupId: sender.defaultGroupId,
        fromGroup: sender.defaultGroupId,
        direction: 'outbound',
        status: 'queued',
        content: 'Later',
        segments: 1,
        encoding: 'GSM-7',
        bulkId: res.body.id,
        sim: 2,
        priority: 'high',
        callbackWebhookId: null,
        requestId: null,
        kind: 'message',
        attempts: 1,
      });
      expect(row.sendAt.toISOString()).toBe(sendAt.toISOString());
      expect(row.expiresAt?.toISOString()).toBe(new Date(sendAt.getTime() + 7_200_000).toISOString());
      expect(row.updatedAt.getTime()).toBe(row.createdAt.getTime());
    }
    const history = await db()
      .select()
      .from(messageStatusHistory)
      .where(inArray(messageStatusHistory.messageId, res.body.message_ids));
    expect(history).toHaveLength(3);
    expect(history.every((h) => h.status === 'queued' && h.at.getTime() === rows[0]!.createdAt.getTime())).toBe(true);
  });

  it.each([
    ['recipients', { recipients: [] }],
    ['recipients', { recipients: numbers(1001) }],
    ['recipients', { recipients: '+14155550101' }],
    ['content', { recipients: numbers(1), content: '' }],
    ['content', { recipients: numbers(1), content: 'x'.repeat(1601) }],
    ['from', { recipients: numbers(1), from: 'me' }],
    ['ttl_s', { recipients: numbers(1), ttl_s: 10 }],
    ['send_at', { recipients: numbers(1), send_at: '2001-01-01T00:00:00Z' }],
  ])('answers 400 naming %s', async (path, body) => {
    const res = await bulkAs(account, body);
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
  });

  it('refuses all with 402 when the group cannot pay for every recipient', async () => {
    const poor = await createTestAccount(db(), { credits: 2 });
    const res = await bulkAs(poor, { recipients: numbers(3) });
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({ code: 'INSUFFICIENT_CREDITS', balance: 2, required: 3 });
    expect(await balanceOf(poor.defaultGroupId)).toBe(2);
    expect(await db().select().from(messages).where(eq(messages.accountId, poor.accountId))).toEqual([]);
  });

  it('never overdraws under concurrent bulk sends', async () => {
    const racer = await createTestAccount(db(), { credits: 100 });
    const results = await Promise.all([0, 1, 2].map((i) => bulkAs(racer, { recipients: numbers(40, 2000 + i * 100) })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(2);
    expect(results.filter((r) => r.status === 402)).toHaveLength(1);
    expect(await balanceOf(racer.defaultGroupId)).toBe(20);
    const [sum] = await db()
      .select({ total: sql<number>`sum(${creditLedger.amount})::int` })
      .from(creditLedger)
      .where(eq(creditLedger.groupId, racer.defaultGroupId));
    expect(Number(sum?.total)).toBe(20);
  });

  it('answers 403 FORBIDDEN for a sender of another account', async () => {
    const other = await createTestAccount(db());
    const res = await call(sendBulk, {
      body: { from: other.phone, recipients: numbers(2), content: 'x' },
      apiKey: account.apiKey,
    });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
  });
});

describe('templates that amplify', () => {
  // 320 placeholders × a 1,600-character value: 512,000 characters a recipient if rendered to the end.
  const amplifying = () => ({
    content: '{{a}}'.repeat(320),
    recipients: numbers(600).map((to) => ({ to, vars: { a: 'x'.repeat(MAX_CONTENT_LENGTH) } })),
  });

  it('rejects each recipient whose text passes the maximum, naming it, and sends nothing', async () => {
    const sender = await createTestAccount(db(), { credits: 1000 });
    const res = await bulkAs(sender, amplifying());
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.errors).toHaveLength(600);
    expect(res.body.errors[599]).toEqual({
      path: 'recipients.599',
      message: `rendered text is over ${MAX_CONTENT_LENGTH} characters`,
    });
    expect(await balanceOf(sender.defaultGroupId)).toBe(1000);
  });

  it('a dry run lists the same rejections', async () => {
    const sender = await createTestAccount(db(), { credits: 1000 });
    const res = await bulkAs(sender, { ...amplifying(), dry_run: true });
    expect(res.status).toBe(200);
    expect(res.body.messages).toEqual([]);
    expect(res.body.rejected).toHaveLength(600);
    expect(res.body.rejected[0]).toMatchObject({ code: 'VALIDATION_ERROR', field: 'recipients.0' });
  });

  it('answers 413 naming recipients when the rendered texts together pass the total, for a send and a dry run', async () => {
    const sender = await createTestAccount(db(), { credits: 2000 });
    const perText = Math.floor(MAX_RENDERED_TOTAL / 1000) + 1;
    const body = {
      content: `{{a}}${'y'.repeat(perText - 10)}`,
      recipients: numbers(1000).map((to) => ({ to, vars: { a: 'x'.repeat(10) } })),
    };
    for (const dryRun of [false, true]) {
      const res = await bulkAs(sender, { ...body, ...(dryRun ? { dry_run: true } : {}) });
      expect(res.status).toBe(413);
      expect(res.body.code).toBe('PAYLOAD_TOO_LARGE');
      expect(res.body.errors).toEqual([{ path: 'recipients', message: expect.stringMatching(/together/) }]);
    }
    expect(await balanceOf(sender.defaultGroupId)).toBe(2000);
    const fits = await bulkAs(sender, { ...body, recipients: body.recipients.slice(0, 999) });
    expect(fits.status).toBe(201);
    expect(fits.body.count).toBe(999);
  });
});

describe('GET /api/v1/bulk-messages/{id}', () => {
  it('counts the bulk’s messages by state', async () => {
    const sender = await createTestAccount(db(), { credits: 10 });
    await db().update(phones).set({ messagesPerMinute: 60 }).where(eq(phones.id, sender.phoneId));
    const created = await bulkAs(sender, { recipients: numbers(4) });
    const claimed = await call(claim, { body: { limit: 2 }, apiKey: sender.deviceKey });
    const [first, second] = claimed.body.data.map((m: { id: string }) => m.id);
    await call(reportStatus, { params: { id: first }, body: { status: 'sent' }, apiKey: sender.deviceKey });
    await call(reportStatus, { params: { id: second }, body: { status: 'failed' }, apiKey: sender.deviceKey });
    const res = await call(readBulk, { params: { id: created.body.id }, apiKey: sender.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: created.body.id,
      from: sender.phone,
      from_group: null,
      count: 4,
      created_at: expect.stringMatching(/Z$/),
      counts: { queued: 2, dispatched: 0, sent: 1, delivered: 0, failed: 1, expired: 0, cancelled: 0 },
      estimated_completion_at: expect.stringMatching(/Z$/),
    });
  });

  it('answers 404 for an unknown id and 400 for a malformed one', async () => {
    expect((await call(readBulk, { params: { id: crypto.randomUUID() }, apiKey: account.apiKey })).status).toBe(404);
    expect((await call(readBulk, { params: { id: '42' }, apiKey: account.apiKey })).status).toBe(400);
  });
});

describe('a second account', () => {
  it('cannot read the first account’s bulk message', async () => {
    const other = await createTestAccount(db());
    const created = await bulkAs(account, { recipients: numbers(2) });
    const res = await call(readBulk, { params: { id: created.body.id }, apiKey: other.apiKey });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
  });
});
