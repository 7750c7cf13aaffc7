import { and, eq, isNull } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { POST as heartbeat } from '@/app/api/v1/heartbeats/route';
import {
  accounts,
  alerts,
  emailOutbox,
  events,
  messages,
  phoneGroups,
  phones,
  webhookAttempts,
  webhookDeliveries,
  webhooks,
} from '@/db/schema';
import { evaluateAlerts } from '@/lib/alerts/evaluate';
import { listDevInbox } from '@/lib/dev-inbox/store';
import { runEmailBatch } from '@/lib/email/outbox';
import { alertEventData } from '@/lib/event-catalogue/catalogue';
import { addTestPhone, createTestAccount, type TestAccount } from './fixtures';
import { call } from './http';
import { withTestDatabase } from './setup-db';

const { db } = withTestDatabase();

const MINUTE = 60_000;

afterEach(() => {
  vi.unstubAllEnvs();
});

async function alertsOf(account: TestAccount) {
  return db().select().from(alerts).where(eq(alerts.accountId, account.accountId));
}

async function alertEvents(account: TestAccount) {
  const rows = await db().select().from(events).where(eq(events.accountId, account.accountId));
  return rows.filter((row) => row.type.startsWith('alert.'));
}

async function alertEmails(account: TestAccount) {
  return db()
    .select()
    .from(emailOutbox)
    .where(and(eq(emailOutbox.accountId, account.accountId), isNull(emailOutbox.inboundMessageId)));
}

/** What the account was told: the alert events (type and kind) and the subjects of its emails. */
async function toldOf(account: TestAccount) {
  return {
    events: (await alertEvents(account)).map((row) => `${row.type} ${(row.payload as { kind: string }).kind}`),
    emails: (await alertEmails(account)).map((row) => row.subject),
  };
}

/** An offline phone whose last heartbeat was `minutesAgo` before `now`. */
async function offlinePhone(account: TestAccount, now: Date, minutesAgo: number, phoneId = account.phoneId) {
  await db()
    .update(phones)
    .set({ status: 'offline', lastHeartbeatAt: new Date(now.getTime() - minutesAgo * MINUTE) })
    .where(eq(phones.id, phoneId));
}

describe('phone_offline', () => {
  it('raises once past the threshold, not again on the next pass, and resolves once when a heartbeat comes back', async () => {
    const owner = await createTestAccount(db());
    const now = new Date();
    await offlinePhone(owner, now, 14);
    await evaluateAlerts(db(), now);
    expect(await alertsOf(owner), 'under 15 minutes: nothing').toEqual([]);

    await offlinePhone(owner, now, 16);
    await evaluateAlerts(db(), now);
    await evaluateAlerts(db(), new Date(now.getTime() + MINUTE));
    const [raised, ...more] = await alertsOf(owner);
    expect(more).toEqual([]);
    expect(raised).toMatchObject({
      kind: 'phone_offline',
      subjectType: 'phone',
      subjectId: owner.phoneId,
      subjectName: owner.phone,
      values: { status: 'offline', threshold_minutes: 15 },
      raisedAt: now,
      resolvedAt: null,
    });
    expect(await toldOf(owner)).toEqual({
      events: ['alert.raised phone_offline'],
      emails: [`Simgate alert: Phone ${owner.phone} is offline (over 15 minutes)`],
    });
    const [event] = await alertEvents(owner);
    expect(event!.phone).toBe(owner.phone);
    expect(alertEventData.parse(event!.payload)).toMatchObject({
      id: raised!.id,
      kind: 'phone_offline',
      subject: { type: 'phone', id: owner.phoneId, name: owner.phone },
      resolved_at: null,
    });

    const beat = await call(heartbeat, { body: { phone: owner.phone, status: 'online' }, apiKey: owner.apiKey });
    expect(beat.status).toBe(200);
    const later = new Date(Date.now() + MINUTE);
    await evaluateAlerts(db(), later);
    await evaluateAlerts(db(), new Date(later.getTime() + MINUTE));
    const [resolved] = await alertsOf(owner);
    expect(resolved!.resolvedAt).toEqual(later);
    expect(await toldOf(owner)).toEqual({
      events: ['alert.raised phone_offline', 'alert.resolved phone_offline'],
      emails: [
        `Simgate alert: Phone ${owner.phone} is offline (over 15 minutes)`,
        `Simgate alert resolved: Phone ${owner.phone} is offline (over 15 minutes)`,
      ],
    });
  });

  it('a phone never heard from is not watched, and an account with the alert off gets none', async () => {
    const never = await createTestAccount(db());
    const off = await createTestAccount(db());
    await db().update(accounts).set({ alertPhoneOfflineMinutes: null }).where(eq(accounts.id, off.accountId));
    const now = new Date();
    await offlinePhone(off, now, 600);
    await evaluateAlerts(db(), now);
    expect(await alertsOf(never)).toEqual([]);
    expect(await alertsOf(off)).toEqual([]);
  });

  it('turning the alert off resolves the open one', async () => {
    const owner = await createTestAccount(db());
    const now = new Date();
    await offlinePhone(owner, now, 60);
    await evaluateAlerts(db(), now);
    expect(await alertsOf(owner)).toHaveLength(1);
    await db().update(accounts).set({ alertPhoneOfflineMinutes: null }).where(eq(accounts.id, owner.accountId));
    await evaluateAlerts(db(), now);
    const [alert] = await alertsOf(owner);
    expect(alert!.resolvedAt).toEqual(now);
  });
});

describe('subjects and webhook filters', () => {
  it('an alert whose phone is deleted resolves, and phone filters pass only alerts about their phone', async () => {
    const owner = await createTestAccount(db());
    const other = await addTestPhone(db(), owner);
    await db().update(accounts).set({ alertGroupBalanceBelow: 1000 }).where(eq(accounts.id, owner.accountId));
    const [filtered] = await db()
      .insert(webhooks)
      .values({
        accountId: owner.accountId,
        url: 'https://hooks.example.test/filtered',
        events: ['alert.raised', 'alert.resolved'],
        phoneFilters: [owner.phone],
        secretEncrypted: 'unused',
      })
      .returning({ id: webhooks.id });
    const now = new Date();
    await db().update(phones).set({ battery: 3 }).where(eq(phones.id, owner.phoneId));
    await db().update(phones).set({ battery: 4 }).where(eq(phones.id, other.phoneId));
    await evaluateAlerts(db(), now);
    expect(await alertsOf(owner)).toHaveLength(3);
    const delivered = await db()
      .select({ eventId: webhookDeliveries.eventId })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.webhookId, filtered!.id));
    const phonesOf = await Promise.all(
      delivered.map(async ({ eventId }) => {
        const [row] = await db().select().from(events).where(eq(events.id, eventId));
        return row!.phone;
      }),
    );
    expect(phonesOf, 'only the battery alert of the filtered phone').toEqual([owner.phone]);

    await db().delete(messages).where(eq(messages.phoneId, other.phoneId));
    await db().delete(phones).where(eq(phones.id, other.phoneId));
    await evaluateAlerts(db(), now);
    const open = (await alertsOf(owner)).filter((alert) => alert.resolvedAt === null);
    expect(open.map((alert) => alert.subjectId).sort()).toEqual([owner.phoneId, String(owner.defaultGroupId)].sort());
  });
});

describe('battery_low', () => {
  it('raises once below the threshold and resolves once above it', async () => {
    const owner = await createTestAccount(db());
    const now = new Date();
    await db().update(phones).set({ battery: 15 }).where(eq(phones.id, owner.phoneId));
    await evaluateAlerts(db(), now);
    expect(await alertsOf(owner), '15 is not below 15').toEqual([]);

    await db().update(phones).set({ battery: 9 }).where(eq(phones.id, owner.phoneId));
    await evaluateAlerts(db(), now);
    await db().update(phones).set({ battery: 7 }).where(eq(phones.id, owner.phoneId));
    await evaluateAlerts(db(), now);
    const [alert, ...more] = await alertsOf(owner);
    expect(more).toEqual([]);
    expect(alert).toMatchObject({ kind: 'battery_low', values: { battery: 9, threshold_percent: 15 } });

    await db().update(phones).set({ battery: 80 }).where(eq(phones.id, owner.phoneId));
    await evaluateAlerts(db(), now);
    await evaluateAlerts(db(), now);
    expect(await toldOf(owner)).toEqual({
      events: ['alert.raised battery_low', 'alert.resolved battery_low'],
      emails: [
        `Simgate alert: Phone ${owner.phone}'s battery is at 9 %`,
        `Simgate alert resolved: Phone ${owner.phone}'s battery is at 9 %`,
      ],
    });
  });
});

describe('queue_stalled', () => {
  it('raises for an online phone holding a message due over the threshold, not for an offline one, and resolves when it goes', async () => {
    const owner = await createTestAccount(db());
    const offline = await addTestPhone(db(), owner);
    const now = new Date();
    await db().update(phones).set({ status: 'online', lastHeartbeatAt: now }).where(eq(phones.id, owner.phoneId));
    const queue = (phoneId: string, from: string, minutesAgo: number) =>
      db()
        .insert(messages)
        .values({
          accountId: owner.accountId,
          phoneId,
          direction: 'outbound',
          from,
          to: '+14155550199',
          content: 'hello',
          status: 'queued',
          segments: 1,
          encoding: 'GSM-7',
          sendAt: new Date(now.getTime() - minutesAgo * MINUTE),
        })
        .returning({ id: messages.id });
    await queue(owner.phoneId, owner.phone, 5);
    await queue(offline.phoneId, offline.phone, 60);
    await evaluateAlerts(db(), now);
    expect(await alertsOf(owner), 'a fresh message, and a stale one on an offline phone').toEqual([]);

    const [stale] = await queue(owner.phoneId, owner.phone, 11);
    await evaluateAlerts(db(), now);
    await evaluateAlerts(db(), now);
    const [alert, ...more] = await alertsOf(owner);
    expect(more).toEqual([]);
    expect(alert).toMatchObject({
      kind: 'queue_stalled',
      subjectId: owner.phoneId,
      values: { queued: 1, threshold_minutes: 10 },
    });

    await db().update(messages).set({ status: 'dispatched' }).where(eq(messages.id, stale!.id));
    await evaluateAlerts(db(), now);
    expect((await alertsOf(owner))[0]!.resolvedAt).toEqual(now);
    expect((await toldOf(owner)).events).toEqual(['alert.raised queue_stalled', 'alert.resolved queue_stalled']);
  });
});

describe('group_balance_low', () => {
  it('counts the default group, raises once and resolves once the balance is back', async () => {
    const owner = await createTestAccount(db(), { credits: 40 });
    const now = new Date();
    await evaluateAlerts(db(), now);
    expect(await alertsOf(owner), 'off by default').toEqual([]);

    await db().update(accounts).set({ alertGroupBalanceBelow: 50 }).where(eq(accounts.id, owner.accountId));
    await evaluateAlerts(db(), now);
    await evaluateAlerts(db(), now);
    const [alert, ...more] = await alertsOf(owner);
    expect(more).toEqual([]);
    expect(alert).toMatchObject({
      kind: 'group_balance_low',
      subjectType: 'group',
      subjectId: String(owner.defaultGroupId),
      values: { balance: 40, threshold: 50 },
    });
    const [event] = await alertEvents(owner);
    expect(event!.phone, 'not about a phone').toBeNull();

    await db().update(phoneGroups).set({ balance: 500 }).where(eq(phoneGroups.id, owner.defaultGroupId));
    await evaluateAlerts(db(), now);
    expect((await toldOf(owner)).events).toEqual([
      'alert.raised group_balance_low',
      'alert.resolved group_balance_low',
    ]);
  });
});

describe('webhook_failing', () => {
  it('raises once after N failed attempts in a row, and resolves when the webhook succeeds again', async () => {
    const owner = await createTestAccount(db());
    await db().update(accounts).set({ alertWebhookFailuresInARow: 3 }).where(eq(accounts.id, owner.accountId));
    const now = new Date();
    const [hook] = await db()
      .insert(webhooks)
      .values({
        accountId: owner.accountId,
        url: 'https://hooks.example.test/failing',
        events: ['message.sent'],
        secretEncrypted: 'unused',
        failingSince: new Date(now.getTime() - 60 * MINUTE),
      })
      .returning({ id: webhooks.id });
    const [event] = await db()
      .insert(events)
      .values({ accountId: owner.accountId, type: 'message.sent', payload: {} })
      .returning({ id: events.id });
    const [delivery] = await db()
      .insert(webhookDeliveries)
      .values({ accountId: owner.accountId, webhookId: hook!.id, eventId: event!.id, eventType: 'message.sent' })
      .returning({ id: webhookDeliveries.id });
    const fail = (minutesAgo: number) =>
      db()
        .insert(webhookAttempts)
        .values({
          accountId: owner.accountId,
          deliveryId: delivery!.id,
          statusCode: 500,
          attemptedAt: new Date(now.getTime() - minutesAgo * MINUTE),
        });
    await fail(50);
    await fail(40);
    await evaluateAlerts(db(), now);
    expect(await alertsOf(owner), 'two failures').toEqual([]);

    await fail(30);
    await evaluateAlerts(db(), now);
    await fail(20);
    await evaluateAlerts(db(), now);
    const [alert, ...more] = await alertsOf(owner);
    expect(more).toEqual([]);
    expect(alert).toMatchObject({
      kind: 'webhook_failing',
      subjectType: 'webhook',
      subjectId: hook!.id,
      subjectName: 'https://hooks.example.test/failing',
      values: { failures_in_a_row: 3, threshold: 3 },
    });

    await db().update(webhooks).set({ failingSince: null }).where(eq(webhooks.id, hook!.id));
    await evaluateAlerts(db(), now);
    expect((await toldOf(owner)).events).toEqual(['alert.raised webhook_failing', 'alert.resolved webhook_failing']);
  });
});

describe('several evaluators at once', () => {
  it('two workers evaluating the same offline phone send one email and one alert.raised, and it resolves after a heartbeat', async () => {
    const owner = await createTestAccount(db());
    const [hook] = await db()
      .insert(webhooks)
      .values({
        accountId: owner.accountId,
        url: 'https://hooks.example.test/alerts',
        events: ['alert.raised', 'alert.resolved'],
        secretEncrypted: 'unused',
      })
      .returning({ id: webhooks.id });
    const now = new Date();
    await offlinePhone(owner, now, 30);

    await Promise.all([evaluateAlerts(db(), now), evaluateAlerts(db(), now)]);

    expect(await alertsOf(owner)).toHaveLength(1);
    expect(await toldOf(owner)).toEqual({
      events: ['alert.raised phone_offline'],
      emails: [`Simgate alert: Phone ${owner.phone} is offline (over 15 minutes)`],
    });
    const deliveries = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, hook!.id));
    expect(deliveries.map((row) => row.eventType)).toEqual(['alert.raised']);

    await runEmailBatch(db(), 100);
    const inbox = await listDevInbox(db(), { to: owner.email, limit: 10 });
    expect(inbox.map((item) => item.subject)).toEqual([
      `Simgate alert: Phone ${owner.phone} is offline (over 15 minutes)`,
    ]);

    await call(heartbeat, { body: { phone: owner.phone, status: 'online' }, apiKey: owner.apiKey });
    const later = new Date(Date.now() + MINUTE);
    await Promise.all([evaluateAlerts(db(), later), evaluateAlerts(db(), later)]);
    expect((await alertsOf(owner))[0]!.resolvedAt).toEqual(later);
    expect((await toldOf(owner)).events).toEqual(['alert.raised phone_offline', 'alert.resolved phone_offline']);
    const all = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, hook!.id));
    expect(all.map((row) => row.eventType).sort()).toEqual(['alert.raised', 'alert.resolved']);
  });

  it('sends at most ALERT_EMAILS_PER_HOUR emails an hour per account, the alerts and events all the same', async () => {
    vi.stubEnv('ALERT_EMAILS_PER_HOUR', '2');
    const owner = await createTestAccount(db());
    const other = await addTestPhone(db(), owner);
    const third = await addTestPhone(db(), owner);
    const now = new Date();
    for (const phoneId of [owner.phoneId, other.phoneId, third.phoneId]) await offlinePhone(owner, now, 30, phoneId);

    await Promise.all([evaluateAlerts(db(), now), evaluateAlerts(db(), now)]);

    expect(await alertsOf(owner)).toHaveLength(3);
    const told = await toldOf(owner);
    expect(told.events).toHaveLength(3);
    expect(told.emails).toHaveLength(2);
  });
});
