import { createHash, createHmac } from 'node:crypto';
import { eq, inArray, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { POST as reportStatus } from '@/app/api/v1/device/messages/[id]/status/route';
import { POST as received } from '@/app/api/v1/device/messages/received/route';
import { POST as claim } from '@/app/api/v1/device/outbox/claim/route';
import { GET as readMessage } from '@/app/api/v1/messages/[id]/route';
import { POST as send } from '@/app/api/v1/messages/route';
import { GET as stats } from '@/app/api/v1/stats/messages/route';
import { queryRows } from '@/db';
import {
  accounts,
  auditLog,
  creditLedger,
  events,
  FINAL_MESSAGE_STATUSES,
  heartbeats,
  MESSAGE_STATUSES,
  type MessageStatus,
  messages,
  pairingCodes,
  simRecipientCounts,
  simRecipients,
  smppDeliveries,
  smppSubmits,
  verificationCodes,
  webhookAttempts,
  webhookDeliveries,
  webhooks,
} from '@/db/schema';
import { derivedKey } from '@/lib/crypto/derived-key';
import { sourcesOf } from '@/lib/messages/state-machine';
import { metrics } from '@/lib/metrics/registry';
import { retentionTotals, startRetentionWork } from '@/lib/retention/background';
import type { InstanceRetention } from '@/lib/retention/policy';
import { sweepRetention } from '@/lib/retention/sweep';
import { citusMode, onRealPostgres } from './database';
import { createTestAccount, type TestAccount, testNumber } from './fixtures';
import { call } from './http';
import { captureLogs } from './logs';
import { until } from './poll';
import { withTestDatabase } from './setup-db';

const { db } = withTestDatabase();
const logs = captureLogs();

/** The sweep's clock: every age below counts back from it. */
const NOW = new Date('2031-03-01T12:00:00.000Z');
const DAY = 86_400_000;
const daysAgo = (days: number, from = NOW) => new Date(from.getTime() - days * DAY);
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
/** A purged counterpart number: HMAC-SHA256 under a key derived from APP_SECRET, never a bare hash. */
const counterpartHash = (number: string) =>
  createHmac('sha256', derivedKey('retention-counterpart')).update(number, 'utf8').digest('hex');

const INSTANCE: InstanceRetention = {
  contentDays: null,
  contentMode: 'hash',
  hashCounterpart: false,
  webhookDeliveriesDays: 30,
  heartbeatsDays: 30,
  auditDays: 365,
};

async function insertMessage(
  account: TestAccount,
  options: { status: MessageStatus; createdAt: Date; content?: string; direction?: 'outbound' | 'inbound' },
) {
  const direction = options.direction ?? (options.status === 'received' ? 'inbound' : 'outbound');
  const counterpart = testNumber();
  const [row] = await db()
    .insert(messages)
    .values({
      accountId: account.accountId,
      phoneId: account.phoneId,
      direction,
      from: direction === 'outbound' ? account.phone : counterpart,
      to: direction === 'outbound' ? counterpart : account.phone,
      content: options.content ?? `text ${crypto.randomUUID()}`,
      status: options.status,
      segments: 1,
      encoding: 'GSM-7',
      createdAt: options.createdAt,
      updatedAt: options.createdAt,
    })
    .returning();
  return row!;
}

async function messageById(id: string) {
  const [row] = await db().select().from(messages).where(eq(messages.id, id));
  return row!;
}

describe('the final-state set', () => {
  it('is exactly the states the state machine allows no move out of', () => {
    const leavable = new Set(MESSAGE_STATUSES.flatMap((to) => sourcesOf(to)));
    expect([...FINAL_MESSAGE_STATUSES].sort()).toEqual(MESSAGE_STATUSES.filter((s) => !leavable.has(s)).sort());
  });
});

describe('message content retention', () => {
  it('hashes the content of final messages past the limit, keeps the counterpart, and never touches a live one', async () => {
    const account = await createTestAccount(db());
    await db().update(accounts).set({ retentionContentDays: 7 }).where(eq(accounts.id, account.accountId));
    const old: Record<string, Awaited<ReturnType<typeof insertMessage>>> = {};
    for (const status of MESSAGE_STATUSES) {
      old[status] = await insertMessage(account, { status, createdAt: daysAgo(8) });
    }
    const young = await insertMessage(account, { status: 'delivered', createdAt: daysAgo(6) });

    const report = await sweepRetention(db(), { now: NOW, settings: INSTANCE });
    expect(report.message_content).toBe(FINAL_MESSAGE_STATUSES.size);

    for (const status of MESSAGE_STATUSES) {
      const before = old[status]!;
      const after = await messageById(before.id);
      if (FINAL_MESSAGE_STATUSES.has(status)) {
        expect(after.content).toBe(sha256(before.content));
        expect(after.contentPurgedAt?.toISOString()).toBe(NOW.toISOString());
      } else {
        // queued, dispatched and sent are not final: their text stays, however old.
        expect(after.content, status).toBe(before.content);
        expect(after.contentPurgedAt, status).toBeNull();
      }
      expect(after.to).toBe(before.to);
      expect(after.from).toBe(before.from);
      expect(after.status).toBe(before.status);
      expect(after.updatedAt).toEqual(before.updatedAt);
    }
    expect((await messageById(young.id)).contentPurgedAt).toBeNull();

    // A second sweep finds nothing: a hash is never hashed again.
    const again = await sweepRetention(db(), { now: NOW, settings: INSTANCE });
    expect(again.message_content).toBe(0);
    expect((await messageById(old.delivered!.id)).content).toBe(sha256(old.delivered!.content));

    // The API shows the message as purged, not as a text.
    const res = await call(readMessage, { params: { id: old.delivered!.id }, apiKey: account.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ content: sha256(old.delivered!.content), content_purged_at: NOW.toISOString() });
    const queued = await call(readMessage, { params: { id: old.queued!.id }, apiKey: account.apiKey });
    expect(queued.body).toMatchObject({ content: old.queued!.content, content_purged_at: null });
  });

  it('empties the content in delete mode and hashes the counterpart when set', async () => {
    const account = await createTestAccount(db());
    const outbound = await insertMessage(account, { status: 'failed', createdAt: daysAgo(40) });
    const inbound = await insertMessage(account, { status: 'received', createdAt: daysAgo(40) });
    const queued = await insertMessage(account, { status: 'queued', createdAt: daysAgo(40) });

    await sweepRetention(db(), {
      now: NOW,
      settings: { ...INSTANCE, contentDays: 30, contentMode: 'delete', hashCounterpart: true },
    });

    const out = await messageById(outbound.id);
    expect(out).toMatchObject({ content: '', to: counterpartHash(outbound.to), from: account.phone });
    expect(out.to).not.toBe(sha256(outbound.to));
    expect(out.contentPurgedAt).not.toBeNull();
    const inb = await messageById(inbound.id);
    expect(inb).toMatchObject({ content: '', from: counterpartHash(inbound.from), to: account.phone });
    const live = await messageById(queued.id);
    expect(live).toMatchObject({ content: queued.content, to: queued.to, contentPurgedAt: null });
  });

  it('hashes any text as its UTF-8 bytes: quotes, backslashes, braces, new lines and emoji', async () => {
    const account = await createTestAccount(db());
    const ugly = ['say "hi" \\ {a,b} NULL', 'line one\nline two\r\n\ttab', 'emoji 😀 ünïcödé ,"\\"', ''];
    const rows = await Promise.all(
      ugly.map((content, i) =>
        insertMessage(account, { status: i % 2 ? 'received' : 'delivered', createdAt: daysAgo(40), content }),
      ),
    );

    await sweepRetention(db(), { now: NOW, settings: { ...INSTANCE, contentDays: 30, hashCounterpart: true } });

    for (const row of rows) {
      const after = await messageById(row.id);
      expect(after.content).toBe(sha256(row.content));
      if (row.direction === 'inbound') expect(after).toMatchObject({ from: counterpartHash(row.from), to: row.to });
      else expect(after).toMatchObject({ to: counterpartHash(row.to), from: row.from });
    }
  });

  it('follows the account: fewer days and delete mode for it, the instance for the others', async () => {
    const strict = await createTestAccount(db());
    const plain = await createTestAccount(db());
    await db()
      .update(accounts)
      .set({ retentionContentDays: 5, retentionContentMode: 'delete', retentionHashCounterpart: true })
      .where(eq(accounts.id, strict.accountId));
    const strictOld = await insertMessage(strict, { status: 'delivered', createdAt: daysAgo(10) });
    const plainOld = await insertMessage(plain, { status: 'delivered', createdAt: daysAgo(10) });
    const plainOlder = await insertMessage(plain, { status: 'delivered', createdAt: daysAgo(31) });

    await sweepRetention(db(), { now: NOW, settings: { ...INSTANCE, contentDays: 30 } });

    expect(await messageById(strictOld.id)).toMatchObject({ content: '', to: counterpartHash(strictOld.to) });
    expect(await messageById(plainOld.id)).toMatchObject({ content: plainOld.content, contentPurgedAt: null });
    expect(await messageById(plainOlder.id)).toMatchObject({ content: sha256(plainOlder.content), to: plainOlder.to });
  });

  it('counts an inbound message’s age from its receipt here, not from a received_at the phone puts days back', async () => {
    const account = await createTestAccount(db());
    const content = `backdated ${crypto.randomUUID()}`;
    const res = await call(received, {
      body: { from: testNumber(), content, received_at: new Date(Date.now() - 3 * DAY).toISOString() },
      apiKey: account.deviceKey,
    });
    expect(res.status, res.text).toBe(201);
    const [row] = await db().select().from(messages).where(eq(messages.content, content));
    const settings = { ...INSTANCE, contentDays: 1 };

    await sweepRetention(db(), { now: new Date(), settings });
    expect(await messageById(row!.id)).toMatchObject({ content, contentPurgedAt: null });
    await sweepRetention(db(), { now: new Date(Date.now() + 2 * DAY), settings });
    expect(await messageById(row!.id)).toMatchObject({ content: sha256(content) });
  });

  it('keeps a purged message in the statistics and leaves the ledger as it was', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    await db().update(accounts).set({ retentionContentDays: 1 }).where(eq(accounts.id, account.accountId));
    const ids: string[] = [];
    for (const content of ['one', 'two', 'three']) {
      const res = await call(send, {
        body: { from: account.phone, to: testNumber(), content },
        apiKey: account.apiKey,
      });
      ids.push(res.body.id);
    }
    await call(claim, { body: { limit: 3 }, apiKey: account.deviceKey });
    for (const status of ['sent', 'delivered'] as const) {
      await call(reportStatus, { params: { id: ids[0]! }, body: { status }, apiKey: account.deviceKey });
    }
    await call(reportStatus, { params: { id: ids[1]! }, body: { status: 'failed' }, apiKey: account.deviceKey });
    await call(received, { body: { from: testNumber(), content: 'hi' }, apiKey: account.deviceKey });

    const ledger = () =>
      db().select().from(creditLedger).where(eq(creditLedger.accountId, account.accountId)).orderBy(creditLedger.id);
    const statsBefore = (await call(stats, { apiKey: account.apiKey })).body;
    const ledgerBefore = await ledger();
    expect(ledgerBefore.length).toBeGreaterThan(0);

    // Two days from now, everything final is past the account's one day.
    const report = await sweepRetention(db(), { now: new Date(Date.now() + 2 * DAY), settings: INSTANCE });
    expect(report.message_content).toBeGreaterThanOrEqual(3);
    const rows = await db().select().from(messages).where(eq(messages.accountId, account.accountId));
    expect(
      rows
        .filter((row) => row.contentPurgedAt !== null)
        .map((row) => row.status)
        .sort(),
    ).toEqual(['delivered', 'failed', 'received']);
    expect(rows.find((row) => row.id === ids[2])).toMatchObject({ status: 'dispatched', content: 'three' });

    const statsAfter = (await call(stats, { apiKey: account.apiKey })).body;
    expect(statsAfter).toEqual(statsBefore);
    expect(statsAfter.today).toMatchObject({ delivered: 1, failed: 1, received: 1 });
    expect(await ledger()).toEqual(ledgerBefore);
  });

  it('shares the work between two sweeps at once: each message purged once, no deadlock', async () => {
    const account = await createTestAccount(db());
    await db().update(accounts).set({ retentionContentDays: 1 }).where(eq(accounts.id, account.accountId));
    const count = 1200;
    await db()
      .insert(messages)
      .values(
        Array.from({ length: count }, (_, i) => ({
          accountId: account.accountId,
          phoneId: account.phoneId,
          direction: 'outbound' as const,
          from: account.phone,
          to: '+14155550000',
          content: `bulk ${i}`,
          status: 'delivered' as const,
          segments: 1,
          encoding: 'GSM-7' as const,
          createdAt: daysAgo(2 + (i % 7)),
        })),
      );
    const sweep = () => sweepRetention(db(), { now: NOW, settings: INSTANCE, batchSize: 100 });
    const [a, b] = await Promise.all([sweep(), sweep()]);
    expect(a.message_content + b.message_content).toBe(count);
    const rows = await db()
      .select({ content: messages.content, purged: messages.contentPurgedAt })
      .from(messages)
      .where(eq(messages.accountId, account.accountId));
    expect(rows).toHaveLength(count);
    const expected = new Set(Array.from({ length: count }, (_, i) => sha256(`bulk ${i}`)));
    expect(rows.every((row) => row.purged !== null && expected.has(row.content))).toBe(true);
  });

  // Plain PostgreSQL's plans: a Citus coordinator's EXPLAIN shows its own scan, not the shard's.
  const onPlainPostgres = onRealPostgres() && !citusMode();

  it.runIf(onPlainPostgres)('finds its batch through messages_retention_idx on PostgreSQL', async () => {
    const account = await createTestAccount(db());
    const plan = await db().transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      return queryRows<{ 'QUERY PLAN': string }>(
        tx,
        sql`explain select id from messages
            where account_id = ${account.accountId} and content_purged_at is null
              and status in ('delivered', 'failed', 'expired', 'cancelled', 'received')
              and created_at < ${NOW.toISOString()}::timestamptz
            order by created_at limit 500 for update skip locked`,
      );
    });
    expect(plan.map((row) => row['QUERY PLAN']).join('\n')).toContain('messages_retention_idx');
  });

  it.runIf(onPlainPostgres)('finds the other kinds’ batches, and their accounts, through their indexes', async () => {
    const cutoff = NOW.toISOString();
    const cases = [
      [
        sql`select account_id from heartbeats where created_at < ${cutoff}::timestamptz order by created_at limit 500`,
        'heartbeats_created_idx',
      ],
      [
        sql`select account_id from audit_log where created_at < ${cutoff}::timestamptz order by created_at limit 500`,
        'audit_log_created_idx',
      ],
      [
        sql`select id from verification_codes where expires_at < ${cutoff}::timestamptz order by expires_at limit 500`,
        'verification_codes_expires_idx',
      ],
      [
        sql`select id from pairing_codes where expires_at < ${cutoff}::timestamptz order by expires_at limit 500`,
        'pairing_codes_expires_idx',
      ],
      [
        sql`select account_id from sim_recipients where month < '2031-02-01'::date order by month limit 500`,
        'sim_recipients_month_idx',
      ],
      [
        sql`select account_id from sim_recipient_counts where month < '2031-02-01'::date order by month limit 500`,
        'sim_recipient_counts_month_idx',
      ],
      [
        sql`select account_id from webhook_deliveries aged where status <> 'pending' and updated_at < ${cutoff}::timestamptz order by updated_at limit 500`,
        'webhook_deliveries_finished_idx',
      ],
      [
        sql`select account_id from events aged where created_at < ${cutoff}::timestamptz
              and not exists (select 1 from webhook_deliveries d where d.account_id = aged.account_id and d.event_id = aged.id)
            order by created_at limit 500`,
        'events_created_idx',
      ],
    ] as const;
    for (const [query, index] of cases) {
      const plan = await db().transaction(async (tx) => {
        await tx.execute(sql`set local enable_seqscan = off`);
        return queryRows<{ 'QUERY PLAN': string }>(tx, sql`explain ${query}`);
      });
      expect(plan.map((row) => row['QUERY PLAN']).join('\n'), index).toContain(index);
    }
  });
});

describe('the other kinds', () => {
  it('deletes finished deliveries with their attempts and old events past the log limit, not before', async () => {
    const account = await createTestAccount(db());
    const [hook] = await db()
      .insert(webhooks)
      .values({
        accountId: account.accountId,
        url: 'https://example.test/hook',
        events: ['message.sent'],
        secretEncrypted: 'x',
      })
      .returning();
    const event = async (createdAt: Date) =>
      (
        await db()
          .insert(events)
          .values({ accountId: account.accountId, type: 'message.sent', payload: { content: 'secret' }, createdAt })
          .returning()
      )[0]!;
    const delivery = async (status: 'pending' | 'succeeded' | 'failed', at: Date) => {
      const e = await event(at);
      const [d] = await db()
        .insert(webhookDeliveries)
        .values({
          accountId: account.accountId,
          webhookId: hook!.id,
          eventId: e.id,
          eventType: 'message.sent',
          status,
          createdAt: at,
          updatedAt: at,
        })
        .returning();
      await db()
        .insert(webhookAttempts)
        .values([
          { accountId: account.accountId, deliveryId: d!.id, attemptedAt: at },
          { accountId: account.accountId, deliveryId: d!.id, attemptedAt: at },
        ]);
      return { event: e, delivery: d! };
    };
    const oldSucceeded = await delivery('succeeded', daysAgo(31));
    const oldFailed = await delivery('failed', daysAgo(45));
    const youngSucceeded = await delivery('succeeded', daysAgo(29));
    const oldPending = await delivery('pending', daysAgo(40));
    const lonelyOld = await event(daysAgo(31));
    const lonelyYoung = await event(daysAgo(29));

    const report = await sweepRetention(db(), { now: NOW, settings: INSTANCE });
    expect(report).toMatchObject({ webhook_deliveries: 2, webhook_attempts: 4 });
    expect(report.events).toBeGreaterThanOrEqual(3);

    const deliveryIds = (await db().select({ id: webhookDeliveries.id }).from(webhookDeliveries)).map((d) => d.id);
    expect(deliveryIds).toEqual(expect.arrayContaining([youngSucceeded.delivery.id, oldPending.delivery.id]));
    expect(deliveryIds).not.toContain(oldSucceeded.delivery.id);
    expect(deliveryIds).not.toContain(oldFailed.delivery.id);
    const attempts = await db()
      .select({ deliveryId: webhookAttempts.deliveryId })
      .from(webhookAttempts)
      .where(inArray(webhookAttempts.deliveryId, [oldSucceeded.delivery.id, oldFailed.delivery.id]));
    expect(attempts).toEqual([]);
    const eventIds = (await db().select({ id: events.id }).from(events)).map((e) => e.id);
    expect(eventIds).toEqual(expect.arrayContaining([youngSucceeded.event.id, oldPending.event.id, lonelyYoung.id]));
    for (const gone of [oldSucceeded.event.id, oldFailed.event.id, lonelyOld.id]) expect(eventIds).not.toContain(gone);

    // The log is kept no longer than message content, which its payloads carry.
    await sweepRetention(db(), { now: NOW, settings: { ...INSTANCE, contentDays: 20 } });
    const left = (await db().select({ id: events.id }).from(events)).map((e) => e.id);
    expect(left).not.toContain(youngSucceeded.event.id);
    expect(left).toContain(oldPending.event.id);
  });

  it('deletes heartbeats and audit entries past their days, and codes a day after they expired', async () => {
    const account = await createTestAccount(db());
    const heartbeat = async (createdAt: Date) =>
      (
        await db()
          .insert(heartbeats)
          .values({ accountId: account.accountId, phoneId: account.phoneId, status: 'online', createdAt })
          .returning()
      )[0]!.id;
    const audit = async (createdAt: Date) =>
      (
        await db()
          .insert(auditLog)
          .values({ accountId: account.accountId, action: 'plan.changed', actorKind: 'operator', createdAt })
          .returning()
      )[0]!.id;
    const code = async (expiresAt: Date) =>
      (
        await db()
          .insert(verificationCodes)
          .values({ purpose: 'sign_in', email: account.email, codeHash: crypto.randomUUID(), expiresAt })
          .returning()
      )[0]!.id;
    const pairing = async (expiresAt: Date) =>
      (
        await db()
          .insert(pairingCodes)
          .values({ accountId: account.accountId, phoneId: account.phoneId, codeHash: crypto.randomUUID(), expiresAt })
          .returning()
      )[0]!.id;

    const kept = {
      heartbeat: await heartbeat(daysAgo(29)),
      audit: await audit(daysAgo(364)),
      code: await code(daysAgo(0.5)),
      liveCode: await code(new Date(NOW.getTime() + 600_000)),
      pairing: await pairing(daysAgo(0.5)),
    };
    const gone = {
      heartbeat: await heartbeat(daysAgo(31)),
      audit: await audit(daysAgo(366)),
      code: await code(daysAgo(2)),
      pairing: await pairing(daysAgo(2)),
    };

    const report = await sweepRetention(db(), { now: NOW, settings: INSTANCE });
    expect(report.heartbeats).toBeGreaterThanOrEqual(1);
    expect(report.audit_log).toBeGreaterThanOrEqual(1);
    expect(report.verification_codes).toBeGreaterThanOrEqual(1);
    expect(report.pairing_codes).toBeGreaterThanOrEqual(1);

    const ids = async (table: typeof heartbeats | typeof auditLog | typeof verificationCodes | typeof pairingCodes) =>
      (await db().select({ id: table.id }).from(table)).map((row) => String(row.id));
    const heartbeatIds = await ids(heartbeats);
    expect(heartbeatIds).toContain(String(kept.heartbeat));
    expect(heartbeatIds).not.toContain(String(gone.heartbeat));
    const auditIds = await ids(auditLog);
    expect(auditIds).toContain(kept.audit);
    expect(auditIds).not.toContain(gone.audit);
    const codeIds = await ids(verificationCodes);
    expect(codeIds).toEqual(expect.arrayContaining([kept.code, kept.liveCode]));
    expect(codeIds).not.toContain(gone.code);
    const pairingIds = await ids(pairingCodes);
    expect(pairingIds).toContain(kept.pairing);
    expect(pairingIds).not.toContain(gone.pairing);

    // Shorter settings take the kept ones too.
    await sweepRetention(db(), { now: NOW, settings: { ...INSTANCE, heartbeatsDays: 7, auditDays: 30 } });
    expect(await ids(heartbeats)).not.toContain(String(kept.heartbeat));
    expect(await ids(auditLog)).not.toContain(kept.audit);
  });

  it('deletes SMPP deliveries past their day and submit records past 40 days', async () => {
    const account = await createTestAccount(db());
    const payload = { messageId: crypto.randomUUID(), from: account.phone, to: testNumber(), content: 'x' };
    const delivery = (expiresAt: Date) =>
      db()
        .insert(smppDeliveries)
        .values({ accountId: account.accountId, kind: 'mo', payload, expiresAt })
        .returning({ id: smppDeliveries.id });
    const submit = async (createdAt: Date) => {
      const messageId = crypto.randomUUID();
      await db()
        .insert(smppSubmits)
        .values({ messageId, accountId: account.accountId, systemId: 'sg-test', registeredDelivery: 1, createdAt });
      return messageId;
    };
    const [expired] = await delivery(daysAgo(0.1));
    const [due] = await delivery(new Date(NOW.getTime() + DAY / 2));
    const oldSubmit = await submit(daysAgo(41));
    const recentSubmit = await submit(daysAgo(39));
    const report = await sweepRetention(db(), { now: NOW, settings: INSTANCE });
    expect(report).toMatchObject({ smpp_deliveries: 1, smpp_submits: 1 });
    const deliveryIds = (await db().select({ id: smppDeliveries.id }).from(smppDeliveries)).map((row) => row.id);
    expect(deliveryIds).toContain(due!.id);
    expect(deliveryIds).not.toContain(expired!.id);
    const submitIds = (await db().select({ id: smppSubmits.messageId }).from(smppSubmits)).map((row) => row.id);
    expect(submitIds).toEqual([recentSubmit]);
    expect(submitIds).not.toContain(oldSubmit);
  });

  it('deletes the monthly recipients and their counters of months before the previous one', async () => {
    const account = await createTestAccount(db());
    // NOW is in March 2031: March and February stay, January and older go.
    const months = ['2031-03-01', '2031-02-01', '2031-01-01', '2030-12-01'];
    for (const month of months) {
      const base = { accountId: account.accountId, phoneId: account.phoneId, sim: 1, month };
      await db()
        .insert(simRecipients)
        .values({ ...base, recipient: testNumber() });
      await db()
        .insert(simRecipientCounts)
        .values({ ...base, recipients: 1 });
    }
    const report = await sweepRetention(db(), { now: NOW, settings: INSTANCE });
    expect(report.monthly_recipients).toBeGreaterThanOrEqual(4);
    const left = async (table: typeof simRecipients | typeof simRecipientCounts) =>
      (
        await db()
          .select({ month: table.month })
          .from(table)
          .where(eq(table.accountId, account.accountId))
          .orderBy(table.month)
      ).map((row) => row.month);
    expect(await left(simRecipients)).toEqual(['2031-02-01', '2031-03-01']);
    expect(await left(simRecipientCounts)).toEqual(['2031-02-01', '2031-03-01']);
  });

  it('stops between batches once its time budget is spent, and the next sweep goes on', async () => {
    const account = await createTestAccount(db());
    await db().update(accounts).set({ retentionContentDays: 1 }).where(eq(accounts.id, account.accountId));
    const message = await insertMessage(account, { status: 'delivered', createdAt: daysAgo(3) });
    const spent = await sweepRetention(db(), { now: NOW, settings: INSTANCE, budgetMs: 0 });
    expect(Object.values(spent).every((rows) => rows === 0)).toBe(true);
    expect((await messageById(message.id)).contentPurgedAt).toBeNull();
    await sweepRetention(db(), { now: NOW, settings: INSTANCE });
    expect((await messageById(message.id)).contentPurgedAt).not.toBeNull();
  });
});

describe('the background sweep', () => {
  it('runs at start and logs one line with the rows removed per kind, adding them to the totals and the metric', async () => {
    const account = await createTestAccount(db());
    await db()
      .insert(heartbeats)
      .values({
        accountId: account.accountId,
        phoneId: account.phoneId,
        status: 'online',
        createdAt: daysAgo(31, new Date()),
      });
    const before = retentionTotals().heartbeats;
    const counted = async () =>
      (await metrics.retentionRowsRemoved.get()).values.find((v) => v.labels.kind === 'heartbeats')?.value ?? 0;
    const countedBefore = await counted();
    const stop = await startRetentionWork();
    try {
      const line = await until(() => logs.entries().find((entry) => entry.task === 'retention sweep'));
      expect(line).toMatchObject({ level: 30, removed: expect.objectContaining({ heartbeats: 1 }) });
      expect(String(line.msg)).toMatch(/^retention sweep: .*heartbeats=1/);
    } finally {
      await stop();
    }
    expect(retentionTotals().heartbeats).toBe(before + 1);
    expect(await counted()).toBe(countedBefore + 1);
  });
});
