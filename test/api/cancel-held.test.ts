/**
 * Cancelling a message a phone already holds (`dispatched` → `cancelling`), for both kinds of phone.
 *
 * The SMSGate app's side is written from its code and its reference server's, at app 0cdc5d8 and
 * server 22074dd:
 * - the pull's items carry `state`; `Cancelling` makes the app cancel the message it holds and PATCH
 *   `{ id, state: 'Cancelled', recipients: [{ phoneNumber, state: 'Cancelled' }], states }`
 *   (capcom6/android-sms-gateway app/src/main/java/me/capcom/smsgateway/modules/gateway/GatewayService.kt,
 *   `processMessage`, ProcessingState.Cancelling);
 * - the server pushes `event: MessageCancelled` with `data: {"messageId": …}`
 *   (android-sms-gateway/server internal/sms-gateway/modules/events/events.go `NewMessageCancelledEvent`,
 *   written by internal/sms-gateway/modules/sse/service.go as `event: %s\ndata: %s`), which the app
 *   parses with MessageCancelledEvent.withPayload (app …/modules/gateway/events/MessageCancelledEvent.kt,
 *   routed by …/modules/orchestrator/EventsRouter.kt);
 * - a message already sent is not cancelled by the app (MessagesService.cancelMessage: only Pending),
 *   so its `Sent`/`Delivered` report arrives instead.
 * The device API's side (the simulator's) is Simgate's own: the claim answer's `cancel` list and the
 * `cancelled` status report.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { GET as events } from '@/app/api/mobile/v1/events/route';
import { PATCH as patchMessages } from '@/app/api/mobile/v1/message/route';
import { POST as cancelBulk } from '@/app/api/v1/bulk-messages/[id]/cancel/route';
import { POST as sendBulk } from '@/app/api/v1/bulk-messages/route';
import { POST as reportStatus } from '@/app/api/v1/device/messages/[id]/status/route';
import { POST as claim } from '@/app/api/v1/device/outbox/claim/route';
import { POST as cancel } from '@/app/api/v1/messages/[id]/cancel/route';
import { GET as readMessage } from '@/app/api/v1/messages/[id]/route';
import { POST as send } from '@/app/api/v1/messages/route';
import { creditLedger, events as eventsTable, messages, phones } from '@/db/schema';
import { expireMessages } from '@/lib/messages/expire';
import { metrics } from '@/lib/metrics/registry';
import { waitingClaims } from '@/lib/notify/outbox';
import { onRealPostgres } from '../database';
import { balanceOf, createTestAccount, type TestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { until } from '../poll';
import { withTestDatabase } from '../setup-db';
import { bearer, type PairedApp, pairVerifiedApp, pullAs } from '../smsgate-app';

const { db } = withTestDatabase();

async function sendFrom(account: TestAccount) {
  const res = await call(send, {
    body: { from: account.phone, to: testNumber(), content: 'Hello' },
    apiKey: account.apiKey,
  });
  expect(res.status).toBe(201);
  return res.body as { id: string; to: string };
}

function cancelAs(account: TestAccount, id: string) {
  return call(cancel, { method: 'POST', params: { id }, apiKey: account.apiKey });
}

function patchAs(app: PairedApp, reports: unknown) {
  return call(patchMessages, { method: 'PATCH', body: reports, headers: bearer(app) });
}

/** The app's PATCH after it cancelled a message (GatewayService.kt: MessagePatchRequest, Cancelled). */
function cancelledReport(message: { id: string; to: string }) {
  return {
    id: message.id,
    state: 'Cancelled',
    recipients: [{ phoneNumber: message.to, state: 'Cancelled', error: null }],
    states: { Cancelled: '2026-01-01T00:00:00.000+00:00' },
  };
}

async function messageOf(account: TestAccount, id: string) {
  return (await call(readMessage, { params: { id }, apiKey: account.apiKey })).body;
}

async function refundsOf(ids: string[]) {
  return db()
    .select({ id: creditLedger.messageId })
    .from(creditLedger)
    .where(and(inArray(creditLedger.messageId, ids), eq(creditLedger.kind, 'refund')));
}

async function eventTypesAbout(account: TestAccount, id: string): Promise<string[]> {
  const rows = await db()
    .select({ type: eventsTable.type })
    .from(eventsTable)
    .where(and(eq(eventsTable.accountId, account.accountId), sql`${eventsTable.payload}->>'id' = ${id}`));
  return rows.map((row) => row.type).sort();
}

/** GET /events in process, collecting what the stream writes. */
async function openStream(app: PairedApp) {
  const controller = new AbortController();
  const res = await events(
    new Request('http://localhost:3000/api/mobile/v1/events', {
      headers: { ...bearer(app), accept: 'text/event-stream' },
      signal: controller.signal,
    }),
    { params: Promise.resolve({}) },
  );
  expect(res.status).toBe(200);
  const state = { text: '' };
  const reader = res.body!.getReader();
  void (async () => {
    const decoder = new TextDecoder();
    for (;;) {
      const chunk = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (chunk.value) state.text += decoder.decode(chunk.value);
      if (chunk.done) break;
    }
  })();
  return { state, close: () => controller.abort() };
}

describe('the SMSGate app: cancelling a message it holds', () => {
  it('202 cancelling, MessageCancelled at once, Cancelling on the pull; the app’s Cancelled refunds it once', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    const app = await pairVerifiedApp(account);
    const message = await sendFrom(account);
    expect((await pullAs(app)).map((item) => item.id)).toContain(message.id);
    const stream = await openStream(app);
    try {
      const res = await cancelAs(account, message.id);
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ id: message.id, status: 'cancelling' });
      // events.go NewMessageCancelledEvent: {"messageId": id}.
      await until(() => stream.state.text.includes(`event: MessageCancelled\ndata: {"messageId":"${message.id}"}\n\n`));
      // Told once per stream, however many wake-ups follow.
      await sendFrom(account);
      await until(() => stream.state.text.split('event: MessageEnqueued').length > 2);
      expect(stream.state.text.split('event: MessageCancelled').length).toBe(2);
    } finally {
      stream.close();
    }
    const pulled = (await pullAs(app)) as unknown as Array<{ id: string; state: string }>;
    expect(pulled.find((item) => item.id === message.id)).toMatchObject({ state: 'Cancelling' });
    // Asked again: the same 202.
    expect((await cancelAs(account, message.id)).status).toBe(202);
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(3);

    expect((await patchAs(app, [cancelledReport(message)])).status).toBeLessThan(300);
    const read = await messageOf(account, message.id);
    expect(read.status).toBe('cancelled');
    expect(read.history.map((entry: { status: string }) => entry.status)).toEqual([
      'queued',
      'dispatched',
      'cancelling',
      'cancelled',
    ]);
    expect(await refundsOf([message.id])).toHaveLength(1);
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(4);
    expect(await eventTypesAbout(account, message.id)).toEqual(['message.cancelled', 'message.cancelling']);
    // The app repeats its reports: nothing more happens; the pull no longer lists it.
    await patchAs(app, [cancelledReport(message)]);
    expect(await refundsOf([message.id])).toHaveLength(1);
    expect((await pullAs(app)).map((item) => item.id)).not.toContain(message.id);
    const again = await cancelAs(account, message.id);
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('cancelled');
  });

  it('a stream opened after the cancel is told at its start', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    const app = await pairVerifiedApp(account);
    const message = await sendFrom(account);
    await pullAs(app);
    expect((await cancelAs(account, message.id)).status).toBe(202);
    const stream = await openStream(app);
    try {
      await until(() => stream.state.text.includes(`data: {"messageId":"${message.id}"}`));
    } finally {
      stream.close();
    }
  });

  it.each([
    ['Sent', 'sent', ['message.cancelling', 'message.sent']],
    ['Delivered', 'delivered', ['message.cancelling', 'message.delivered', 'message.sent']],
  ])('a %s that arrives instead wins: no refund, its events as usual', async (state, status, types) => {
    const account = await createTestAccount(db(), { credits: 5 });
    const app = await pairVerifiedApp(account);
    const message = await sendFrom(account);
    await pullAs(app);
    expect((await cancelAs(account, message.id)).status).toBe(202);
    await patchAs(app, [{ id: message.id, state, recipients: [{ phoneNumber: message.to, state }] }]);
    // Too late for the app's own Cancelled, which it would not send for a sent message anyway.
    await patchAs(app, [cancelledReport(message)]);
    expect((await messageOf(account, message.id)).status).toBe(status);
    expect(await refundsOf([message.id])).toHaveLength(0);
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(4);
    expect(await eventTypesAbout(account, message.id)).toEqual(types);
    const late = await cancelAs(account, message.id);
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ code: 'MESSAGE_NOT_CANCELLABLE', current_status: status });
  });

  it('a phone that answers neither lets it expire at its TTL, refunded once', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    const app = await pairVerifiedApp(account);
    const message = await sendFrom(account);
    await pullAs(app);
    expect((await cancelAs(account, message.id)).status).toBe(202);
    const past = new Date(Date.now() - 1000);
    await db().update(messages).set({ expiresAt: past }).where(eq(messages.id, message.id));
    expect(await expireMessages(db())).toBeGreaterThanOrEqual(1);
    expect((await messageOf(account, message.id)).status).toBe('expired');
    await patchAs(app, [cancelledReport(message)]);
    expect((await messageOf(account, message.id)).status).toBe('expired');
    expect(await refundsOf([message.id])).toHaveLength(1);
    expect(await eventTypesAbout(account, message.id)).toEqual(['message.cancelling', 'message.expired']);
  });

  it('another account cannot cancel it (404), nor can another account’s phone report on it', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    const other = await createTestAccount(db(), { credits: 5 });
    const app = await pairVerifiedApp(account);
    const otherApp = await pairVerifiedApp(other);
    const message = await sendFrom(account);
    await pullAs(app);
    expect((await cancelAs(other, message.id)).status).toBe(404);
    expect((await messageOf(account, message.id)).status).toBe('dispatched');
    expect((await cancelAs(account, message.id)).status).toBe(202);
    // Another account's phone: its pull does not list it, its report is skipped.
    expect((await pullAs(otherApp)).map((item) => item.id)).not.toContain(message.id);
    await patchAs(otherApp, [cancelledReport(message)]);
    expect((await messageOf(account, message.id)).status).toBe('cancelling');
    expect(await refundsOf([message.id])).toHaveLength(0);
  });
});

async function transitionsTo(to: string): Promise<number> {
  const { values } = await metrics.transitions.get();
  return values.find((value) => value.labels.to === to)?.value ?? 0;
}

describe('the device API (the simulator): cancelling a message it holds', () => {
  function claimAs(account: TestAccount, wait = 0) {
    return call(claim, {
      path: `/api/v1/device/outbox/claim?wait=${wait}`,
      body: { limit: 10 },
      apiKey: account.deviceKey,
    });
  }

  function reportAs(account: TestAccount, id: string, status: string) {
    return call(reportStatus, { params: { id }, body: { status }, apiKey: account.deviceKey });
  }

  it('the claim answer lists it in `cancel`; the phone’s `cancelled` ends it, refunded', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    const message = await sendFrom(account);
    const first = await claimAs(account);
    expect(first.body).toEqual({ data: [expect.objectContaining({ id: message.id })], cancel: [] });
    // Not asked: a phone cannot cancel on its own.
    const unasked = await reportAs(account, message.id, 'cancelled');
    expect(unasked.status).toBe(409);
    expect(unasked.body.code).toBe('INVALID_TRANSITION');

    const countedBefore = await transitionsTo('cancelling');
    // A long-poll waiting when the cancel commits answers with it.
    const waiting = claimAs(account, 20);
    await until(async () => {
      const res = await cancelAs(account, message.id);
      return res.status === 202;
    });
    const woken = await waiting;
    expect(woken.status).toBe(200);
    expect(woken.body).toEqual({ data: [], cancel: [message.id] });
    // Counted as every move is, through its history row (lib/metrics/record.ts messagesMoved).
    expect(await transitionsTo('cancelling')).toBe(countedBefore + 1);
    expect((await claimAs(account)).body.cancel).toEqual([message.id]);

    const reported = await reportAs(account, message.id, 'cancelled');
    expect(reported.status).toBe(200);
    expect(reported.body.status).toBe('cancelled');
    expect(await refundsOf([message.id])).toHaveLength(1);
    expect((await claimAs(account)).body).toEqual({ data: [], cancel: [] });
    expect(await eventTypesAbout(account, message.id)).toEqual(['message.cancelled', 'message.cancelling']);
  });

  it('a long-poll woken by a send answers the new message with the messages to drop', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    const held = await sendFrom(account);
    expect((await claimAs(account)).body.data).toEqual([expect.objectContaining({ id: held.id })]);
    expect((await cancelAs(account, held.id)).status).toBe(202);
    // Asked to drop it a while ago: a long-poll beginning now waits rather than answering the cancel.
    await db()
      .update(messages)
      .set({ updatedAt: sql`now() - interval '1 minute'` })
      .where(and(eq(messages.accountId, account.accountId), eq(messages.id, held.id)));
    const waiting = claimAs(account, 20);
    await until(() => waitingClaims(account.phoneId) === 1);
    const next = await sendFrom(account);
    const woken = await waiting;
    expect(woken.status).toBe(200);
    expect(woken.body).toEqual({ data: [expect.objectContaining({ id: next.id })], cancel: [held.id] });
  });

  it('a bulk cancel asks the phone to drop what it holds and cancels the rest at once', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const bulk = await call(sendBulk, {
      body: { from: account.phone, recipients: [testNumber(), testNumber()], content: 'x' },
      apiKey: account.apiKey,
    });
    const held = (await call(claim, { body: { limit: 1 }, apiKey: account.deviceKey })).body.data[0].id;
    const res = await call(cancelBulk, { method: 'POST', params: { id: bulk.body.id }, apiKey: account.apiKey });
    expect(res.body).toEqual({ id: bulk.body.id, cancelled: 1, cancelling: 1, not_cancellable: 0 });
    expect((await claimAs(account)).body.cancel).toEqual([held]);
    expect((await reportAs(account, held, 'sent')).body.status).toBe('sent');
    expect(await refundsOf(bulk.body.message_ids)).toHaveLength(1);
  });

  it.runIf(onRealPostgres())(
    'the phone’s cancelled, repeated, racing the expiry sweep: each message ends once, refunded exactly once',
    async () => {
      const account = await createTestAccount(db(), { credits: 100 });
      await db().update(phones).set({ messagesPerMinute: 60 }).where(eq(phones.id, account.phoneId));
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) ids.push((await sendFrom(account)).id);
      const claimed = (await call(claim, { body: { limit: 20 }, apiKey: account.deviceKey })).body.data;
      expect(claimed).toHaveLength(20);
      for (const id of ids) expect((await cancelAs(account, id)).status).toBe(202);
      await db()
        .update(messages)
        .set({ expiresAt: new Date(Date.now() - 1000) })
        .where(inArray(messages.id, ids));
      await Promise.all([
        ...ids.flatMap((id) => [reportAs(account, id, 'cancelled'), reportAs(account, id, 'cancelled')]),
        ...ids.map((id) => cancelAs(account, id)),
        expireMessages(db()),
        expireMessages(db()),
      ]);
      const rows = await db().select().from(messages).where(inArray(messages.id, ids));
      for (const row of rows) expect(['cancelled', 'expired']).toContain(row.status);
      const refunds = await refundsOf(ids);
      expect(refunds).toHaveLength(20);
      expect(new Set(refunds.map((row) => row.id)).size).toBe(20);
      expect(await balanceOf(db(), account.defaultGroupId)).toBe(100);
    },
  );
});
