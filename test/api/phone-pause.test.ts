import { and, eq, isNull } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { POST as reportStatus } from '@/app/api/v1/device/messages/[id]/status/route';
import { POST as claim } from '@/app/api/v1/device/outbox/claim/route';
import { POST as send } from '@/app/api/v1/messages/route';
import { GET as getPhone } from '@/app/api/v1/phones/[id]/route';
import { alerts, events, messages, phones } from '@/db/schema';
import { evaluateAlerts } from '@/lib/alerts/evaluate';
import { rerouteStranded } from '@/lib/messages/reroute';
import { resumePausedPhones } from '@/lib/phones/pause';
import { addTestPhone, createTestAccount, type TestAccount, type TestPhone, testNumber } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';
import { pairVerifiedApp, pullAs, signedCallback } from '../smsgate-app';

const { db } = withTestDatabase();

const LIMIT = { status: 'failed', error_code: 'RESULT_ERROR_LIMIT_EXCEEDED' };

/** An account whose default group has two online phones, A (the fixture's) and B. */
async function twoPhones(): Promise<{ who: TestAccount; b: TestPhone }> {
  const who = await createTestAccount(db(), { credits: 100 });
  await db().update(phones).set({ status: 'online', lastHeartbeatAt: new Date() }).where(eq(phones.id, who.phoneId));
  const b = await addTestPhone(db(), who, { online: true });
  return { who, b };
}

function sendVia(who: TestAccount, body: Record<string, unknown>) {
  return call(send, { body: { to: testNumber(), content: 'hello', ...body }, apiKey: who.apiKey });
}

async function claimAs(deviceKey: string) {
  const res = await call(claim, { body: { limit: 10 }, apiKey: deviceKey });
  expect(res.status).toBe(200);
  return res.body.data as Array<{ id: string }>;
}

function report(deviceKey: string, id: string, body: Record<string, unknown>) {
  return call(reportStatus, { params: { id }, body, apiKey: deviceKey });
}

async function messageRow(who: TestAccount, id: string) {
  const [row] = await db()
    .select()
    .from(messages)
    .where(and(eq(messages.accountId, who.accountId), eq(messages.id, id)));
  return row!;
}

async function phoneRow(id: string) {
  const [row] = await db().select().from(phones).where(eq(phones.id, id));
  return row!;
}

async function eventsOf(who: TestAccount, type: string) {
  const rows = await db().select().from(events).where(eq(events.accountId, who.accountId));
  return rows.filter((row) => row.type === type);
}

/** A phone's pause as if it had ended `minutesAgo` minutes ago. */
async function endPause(phoneId: string, minutesAgo: number) {
  await db()
    .update(phones)
    .set({ pausedUntil: new Date(Date.now() - minutesAgo * 60_000) })
    .where(eq(phones.id, phoneId));
}

describe('a phone that reports RESULT_ERROR_LIMIT_EXCEEDED', () => {
  it('is paused for LIMIT_PAUSE_SECONDS, its message moves to another phone of the group, and it is handed nothing', async () => {
    const { who, b } = await twoPhones();
    const sent = await sendVia(who, { from: who.phone });
    expect(sent.status).toBe(201);
    const grouped = await sendVia(who, { from_group: who.defaultGroupId });
    expect(grouped.status).toBe(201);
    // The group message went to A or B: make it A's, as a failover test does.
    await db().update(messages).set({ phoneId: who.phoneId, from: who.phone }).where(eq(messages.id, grouped.body.id));
    const handed = await claimAs(who.deviceKey);
    expect(handed.map((m) => m.id).sort()).toEqual([sent.body.id, grouped.body.id].sort());

    const before = Date.now();
    const failed = await report(who.deviceKey, grouped.body.id, LIMIT);
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({ status: 'queued', from: b.phone });

    const shown = await call(getPhone, { params: { id: who.phoneId }, apiKey: who.apiKey });
    const until = new Date(shown.body.paused_until).getTime();
    expect(until).toBeGreaterThanOrEqual(before + 900_000);
    expect(until).toBeLessThanOrEqual(Date.now() + 900_000);
    const paused = await eventsOf(who, 'phone.paused');
    expect(paused).toHaveLength(1);
    expect(paused[0]!.payload).toMatchObject({ phone_id: who.phoneId, phone: who.phone, pause_seconds: 900 });
    expect((paused[0]!.payload as { until: string }).until).toBe(shown.body.paused_until);
    expect((await call(getPhone, { params: { id: b.phoneId }, apiKey: who.apiKey })).body.paused_until).toBeNull();

    // The message sent `from` A fails the same way: it waits on A for the pause, and no second event.
    const waiting = await report(who.deviceKey, sent.body.id, LIMIT);
    expect(waiting.body).toMatchObject({ status: 'queued', from: who.phone });
    expect((await messageRow(who, sent.body.id)).sendAt.toISOString()).toBe(shown.body.paused_until);
    expect(await eventsOf(who, 'phone.paused')).toHaveLength(1);

    // A is handed nothing, even a message due now; B takes the moved one.
    await db().update(messages).set({ sendAt: new Date() }).where(eq(messages.id, sent.body.id));
    expect(await claimAs(who.deviceKey)).toEqual([]);
    expect((await claimAs(b.deviceKey)).map((m) => m.id)).toEqual([grouped.body.id]);
  });

  it('its queued group messages move as for an offline phone, and group sends skip it', async () => {
    const { who, b } = await twoPhones();
    const first = await sendVia(who, { from: who.phone });
    await claimAs(who.deviceKey);
    const queued = await sendVia(who, { from_group: who.defaultGroupId });
    await db().update(messages).set({ phoneId: who.phoneId, from: who.phone }).where(eq(messages.id, queued.body.id));
    await report(who.deviceKey, first.body.id, LIMIT);

    await rerouteStranded(db());
    const moved = await messageRow(who, queued.body.id);
    expect(moved.phoneId).toBe(b.phoneId);
    for (let i = 0; i < 3; i++) {
      const next = await sendVia(who, { from_group: who.defaultGroupId });
      expect(next.body.from).toBe(b.phone);
    }
  });

  it('doubles on a repeat, caps at 4 hours, and starts over after a quiet hour', async () => {
    const { who } = await twoPhones();
    const limitReportAfter = async (pause: { endedMinutesAgo: number; seconds: number } | null) => {
      const sent = await sendVia(who, { from: who.phone });
      await db().update(phones).set({ pausedUntil: null }).where(eq(phones.id, who.phoneId));
      await claimAs(who.deviceKey);
      if (pause) {
        await db()
          .update(phones)
          .set({ pausedUntil: new Date(Date.now() - pause.endedMinutesAgo * 60_000), pauseSeconds: pause.seconds })
          .where(eq(phones.id, who.phoneId));
      }
      await report(who.deviceKey, sent.body.id, LIMIT);
      return (await phoneRow(who.phoneId)).pauseSeconds;
    };
    expect(await limitReportAfter(null)).toBe(900);
    expect(await limitReportAfter({ endedMinutesAgo: 10, seconds: 900 })).toBe(1800);
    expect(await limitReportAfter({ endedMinutesAgo: 50, seconds: 7200 })).toBe(14_400);
    expect(await limitReportAfter({ endedMinutesAgo: 5, seconds: 14_400 })).toBe(14_400);
    expect(await limitReportAfter({ endedMinutesAgo: 61, seconds: 14_400 })).toBe(900);
    // Each pause that ended before the next began was announced as over, once.
    expect(await eventsOf(who, 'phone.paused')).toHaveLength(5);
    expect(await eventsOf(who, 'phone.resumed')).toHaveLength(4);
  });

  it('another failure pauses nothing', async () => {
    const { who } = await twoPhones();
    const sent = await sendVia(who, { from: who.phone });
    await claimAs(who.deviceKey);
    await report(who.deviceKey, sent.body.id, { status: 'failed', error_code: 'RESULT_ERROR_NO_SERVICE' });
    expect((await phoneRow(who.phoneId)).pausedUntil).toBeNull();
    expect(await eventsOf(who, 'phone.paused')).toHaveLength(0);
  });

  it('raises one phone_paused alert, and emits phone.resumed once when the pause is over', async () => {
    const { who } = await twoPhones();
    const sent = await sendVia(who, { from: who.phone });
    await claimAs(who.deviceKey);
    await report(who.deviceKey, sent.body.id, LIMIT);
    await evaluateAlerts(db());
    await evaluateAlerts(db());
    const open = await db()
      .select()
      .from(alerts)
      .where(and(eq(alerts.accountId, who.accountId), eq(alerts.kind, 'phone_paused'), isNull(alerts.resolvedAt)));
    expect(open).toHaveLength(1);
    expect(open[0]!.subjectId).toBe(who.phoneId);

    expect(await resumePausedPhones(db())).toBe(0);
    await endPause(who.phoneId, 0.1);
    await resumePausedPhones(db());
    await resumePausedPhones(db());
    const resumed = await eventsOf(who, 'phone.resumed');
    expect(resumed).toHaveLength(1);
    expect(resumed[0]!.payload).toMatchObject({ phone_id: who.phoneId, pause_seconds: 900 });
    expect((await call(getPhone, { params: { id: who.phoneId }, apiKey: who.apiKey })).body.paused_until).toBeNull();
    await evaluateAlerts(db());
    const still = await db()
      .select()
      .from(alerts)
      .where(and(eq(alerts.accountId, who.accountId), eq(alerts.kind, 'phone_paused'), isNull(alerts.resolvedAt)));
    expect(still).toHaveLength(0);
    // The message sent from it waited for the pause; it is handed out now.
    await db().update(messages).set({ sendAt: new Date() }).where(eq(messages.id, sent.body.id));
    expect((await claimAs(who.deviceKey)).map((m) => m.id)).toEqual([sent.body.id]);
  });

  it('two limit reports at once start one pause', async () => {
    const { who } = await twoPhones();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await sendVia(who, { from: who.phone })).body.id);
    await claimAs(who.deviceKey);
    const results = await Promise.all(ids.map((id) => report(who.deviceKey, id, LIMIT)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(await eventsOf(who, 'phone.paused')).toHaveLength(1);
  });
});

describe('the SMSGate app reporting RESULT_ERROR_LIMIT_EXCEEDED in its error text', () => {
  it('pauses the phone', async () => {
    const who = await createTestAccount(db(), { credits: 10 });
    const app = await pairVerifiedApp(who);
    const sent = await sendVia(who, { from: who.phone });
    expect(sent.status).toBe(201);
    const pulled = await pullAs(app);
    expect(pulled.map((m) => m.id)).toContain(sent.body.id);
    const res = await signedCallback(app, 'sms:failed', {
      messageId: sent.body.id,
      phoneNumber: sent.body.to,
      reason: 'Send result: RESULT_ERROR_LIMIT_EXCEEDED',
    });
    expect(res.status).toBe(200);
    expect((await phoneRow(who.phoneId)).pausedUntil?.getTime()).toBeGreaterThan(Date.now());
    expect(await eventsOf(who, 'phone.paused')).toHaveLength(1);
  });
});
