import { and, eq, inArray, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { POST as cancelBulk } from '@/app/api/v1/bulk-messages/[id]/cancel/route';
import { POST as sendBulk } from '@/app/api/v1/bulk-messages/route';
import { POST as reportStatus } from '@/app/api/v1/device/messages/[id]/status/route';
import { POST as claim } from '@/app/api/v1/device/outbox/claim/route';
import { POST as cancel } from '@/app/api/v1/messages/[id]/cancel/route';
import { GET as readMessage } from '@/app/api/v1/messages/[id]/route';
import { GET as list, POST as send } from '@/app/api/v1/messages/route';
import { PATCH as patchGroup } from '@/app/api/v1/phone-groups/[id]/route';
import { POST as createGroup } from '@/app/api/v1/phone-groups/route';
import { PATCH as patchSettings, GET as readSettings } from '@/app/api/v1/settings/sending/route';
import { creditLedger, events, messages, phones } from '@/db/schema';
import { dispatchCounts } from '@/lib/messages/pacing';
import { describeAuthCases } from '../auth-cases';
import { onRealPostgres } from '../database';
import { balanceOf, createTestAccount, sharedTestAccount, type TestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();
const { fixture } = sharedTestAccount(db);

describeAuthCases('POST /api/v1/messages/{id}/cancel', {
  handler: cancel,
  request: () => ({ params: { id: crypto.randomUUID() }, method: 'POST' }),
  accepts: 'account',
  fixture,
});
describeAuthCases('POST /api/v1/bulk-messages/{id}/cancel', {
  handler: cancelBulk,
  request: () => ({ params: { id: crypto.randomUUID() }, method: 'POST' }),
  accepts: 'account',
  fixture,
});
describeAuthCases('PATCH /api/v1/settings/sending', {
  handler: patchSettings,
  request: { body: { max_attempts: 2 }, method: 'PATCH' },
  accepts: 'account',
  fixture,
});

function sendAs(who: TestAccount, body: Record<string, unknown> = {}) {
  return call(send, { body: { from: who.phone, to: testNumber(), content: 'Hello', ...body }, apiKey: who.apiKey });
}

function claimAs(who: TestAccount, limit = 10) {
  return call(claim, { body: { limit }, apiKey: who.deviceKey });
}

function settings(who: TestAccount, body: Record<string, unknown>) {
  return call(patchSettings, { method: 'PATCH', body, apiKey: who.apiKey });
}

async function ledgerKinds(messageId: string): Promise<string[]> {
  const rows = await db()
    .select({ kind: creditLedger.kind })
    .from(creditLedger)
    .where(eq(creditLedger.messageId, messageId));
  return rows.map((row) => row.kind).sort();
}

async function eventsOf(accountId: string, type: string) {
  return db()
    .select({ payload: events.payload })
    .from(events)
    .where(and(eq(events.accountId, accountId), sql`${events.type} = ${type}`));
}

describe('cancel', () => {
  it('cancels a queued and a scheduled message: refunded, message.cancelled, a second cancel answers 200', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    const now = await sendAs(account);
    const later = await sendAs(account, { send_at: new Date(Date.now() + 3_600_000).toISOString() });
    for (const sent of [now, later]) {
      const res = await call(cancel, { method: 'POST', params: { id: sent.body.id }, apiKey: account.apiKey });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: sent.body.id, status: 'cancelled' });
      expect(await ledgerKinds(sent.body.id)).toEqual(['message_charge', 'refund']);
      const again = await call(cancel, { method: 'POST', params: { id: sent.body.id }, apiKey: account.apiKey });
      expect(again.status).toBe(200);
      expect(again.body.status).toBe('cancelled');
    }
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(5);
    expect(await eventsOf(account.accountId, 'message.cancelled')).toHaveLength(2);
    expect((await claimAs(account)).body.data).toEqual([]);
  });

  it('a message already sent answers 409 MESSAGE_NOT_CANCELLABLE with its state; another account’s is 404', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    const other = await createTestAccount(db());
    const sent = await sendAs(account);
    await claimAs(account);
    await call(reportStatus, { params: { id: sent.body.id }, body: { status: 'sent' }, apiKey: account.deviceKey });
    const res = await call(cancel, { method: 'POST', params: { id: sent.body.id }, apiKey: account.apiKey });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'MESSAGE_NOT_CANCELLABLE', current_status: 'sent' });
    const foreign = await call(cancel, { method: 'POST', params: { id: sent.body.id }, apiKey: other.apiKey });
    expect(foreign.status).toBe(404);
    expect(await ledgerKinds(sent.body.id)).toEqual(['message_charge']);
  });

  it('cancels what is still queued of a bulk, asks the phone to drop what it holds, and counts the rest', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const bulk = await call(sendBulk, {
      body: { from: account.phone, recipients: [testNumber(), testNumber(), testNumber()], content: 'x' },
      apiKey: account.apiKey,
    });
    await claimAs(account, 1);
    const res = await call(cancelBulk, { method: 'POST', params: { id: bulk.body.id }, apiKey: account.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: bulk.body.id, cancelled: 2, cancelling: 1, not_cancellable: 0 });
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(9);
    const again = await call(cancelBulk, { method: 'POST', params: { id: bulk.body.id }, apiKey: account.apiKey });
    expect(again.body).toEqual({ id: bulk.body.id, cancelled: 0, cancelling: 0, not_cancellable: 0 });
    const other = await createTestAccount(db());
    expect(
      (await call(cancelBulk, { method: 'POST', params: { id: bulk.body.id }, apiKey: other.apiKey })).status,
    ).toBe(404);
  });

  it.runIf(onRealPostgres())(
    'a bulk cancel racing a claim loop: each message ends handed out or cancelled, refunded at most once',
    async () => {
      const account = await createTestAccount(db(), { credits: 500 });
      await db().update(phones).set({ messagesPerMinute: 60 }).where(eq(phones.id, account.phoneId));
      const recipients = Array.from({ length: 200 }, (_, i) => `+1415556${String(1000 + i)}`);
      const bulk = await call(sendBulk, {
        body: { from: account.phone, recipients, content: 'race', send_at: new Date().toISOString() },
        apiKey: account.apiKey,
      });
      expect(bulk.status).toBe(201);
      let claimed = 0;
      const claiming = (async () => {
        for (let round = 0; round < 20; round++) claimed += (await claimAs(account, 5)).body.data.length;
      })();
      const cancelled = await call(cancelBulk, {
        method: 'POST',
        params: { id: bulk.body.id },
        apiKey: account.apiKey,
      });
      await claiming;
      const rows = await db().select().from(messages).where(inArray(messages.id, bulk.body.message_ids));
      const countOf = (status: string) => rows.filter((row) => row.status === status).length;
      // Claimed before the cancel: the phone is asked to drop it (`cancelling`); after: still handed out.
      expect(countOf('dispatched') + countOf('cancelling')).toBe(claimed);
      expect(countOf('cancelling')).toBe(cancelled.body.cancelling);
      expect(countOf('cancelled')).toBe(cancelled.body.cancelled);
      expect(claimed + cancelled.body.cancelled).toBe(200);
      const refunds = await db()
        .select({ id: creditLedger.messageId })
        .from(creditLedger)
        .where(and(inArray(creditLedger.messageId, bulk.body.message_ids), eq(creditLedger.kind, 'refund')));
      expect(refunds).toHaveLength(cancelled.body.cancelled);
      expect(new Set(refunds.map((row) => row.id)).size).toBe(refunds.length);
      expect(await balanceOf(db(), account.defaultGroupId)).toBe(500 - claimed);
    },
  );
});

describe('priority', () => {
  it('a claim hands out high before normal, oldest first within each, and the list filters by it', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const normal1 = await sendAs(account);
    const high1 = await sendAs(account, { priority: 'high' });
    const normal2 = await sendAs(account);
    const high2 = await sendAs(account, { priority: 'high' });
    expect(high1.body.priority).toBe('high');
    const handed = (await claimAs(account)).body.data.map((m: { id: string }) => m.id);
    expect(handed).toEqual([high1.body.id, high2.body.id, normal1.body.id, normal2.body.id]);
    const highs = await call(list, { path: '/x?priority=high', apiKey: account.apiKey });
    expect(highs.body.data.map((m: { id: string }) => m.id).sort()).toEqual([high1.body.id, high2.body.id].sort());
  });

  it('still obeys pacing', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    await db().update(phones).set({ messagesPerMinute: 1 }).where(eq(phones.id, account.phoneId));
    await sendAs(account, { priority: 'high' });
    await sendAs(account, { priority: 'high' });
    expect((await claimAs(account)).body.data).toHaveLength(1);
    expect((await claimAs(account)).body.data).toHaveLength(0);
  });
});

const EVERY_DAY = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];

/** A window open all day, or one that opens two hours from now (UTC) for an hour: closed now. */
function windowAround(open: boolean) {
  if (open) return { time_zone: 'UTC', days: EVERY_DAY, start: '00:00', end: '24:00' };
  const start = (new Date().getUTCHours() + 2) % 24;
  const pad = (h: number) => `${String(h).padStart(2, '0')}:00`;
  return { time_zone: 'UTC', days: EVERY_DAY, start: pad(start), end: pad(start + 1) };
}

describe('send windows', () => {
  it('a closed window keeps normal messages queued through a claim; high goes out; an open one hands them out', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    expect((await settings(account, { send_window: windowAround(false) })).status).toBe(200);
    const normal = await sendAs(account);
    const high = await sendAs(account, { priority: 'high' });
    expect((await claimAs(account)).body.data.map((m: { id: string }) => m.id)).toEqual([high.body.id]);
    expect((await claimAs(account)).body.data).toEqual([]);
    await settings(account, { send_window: windowAround(true) });
    expect((await claimAs(account)).body.data.map((m: { id: string }) => m.id)).toEqual([normal.body.id]);
  });

  it('a group’s window overrides the account’s; "inherit" drops it; the default group is locked', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const group = await call(createGroup, { body: { name: 'Night shift' }, apiKey: account.apiKey });
    const set = await call(patchGroup, {
      method: 'PATCH',
      params: { id: String(group.body.id) },
      body: { sending: { send_window: windowAround(false), max_attempts: 3 } },
      apiKey: account.apiKey,
    });
    expect(set.status).toBe(200);
    expect(set.body.sending).toMatchObject({ max_attempts: 3, send_window: { time_zone: 'UTC' } });
    expect((await sendAs(account)).status).toBe(201);
    // The phone joins the group (its window now applies to the phone's claims).
    await db().update(phones).set({ groupId: group.body.id }).where(eq(phones.id, account.phoneId));
    expect((await claimAs(account)).body.data).toEqual([]);
    const inherit = await call(patchGroup, {
      method: 'PATCH',
      params: { id: String(group.body.id) },
      body: { sending: { send_window: 'inherit' } },
      apiKey: account.apiKey,
    });
    expect(inherit.body.sending).toEqual({ max_attempts: 3 });
    expect((await claimAs(account)).body.data).toHaveLength(1);
    const locked = await call(patchGroup, {
      method: 'PATCH',
      params: { id: String(account.defaultGroupId) },
      body: { sending: { max_attempts: 1 } },
      apiKey: account.apiKey,
    });
    expect(locked.status).toBe(400);
    expect(locked.body.code).toBe('DEFAULT_GROUP_LOCKED');
  });

  it('refuses an unknown time zone, no days, and start not before end, naming the field', async () => {
    const account = await createTestAccount(db());
    const base = windowAround(true);
    for (const [window, path] of [
      [{ ...base, time_zone: 'Mars/Olympus' }, 'send_window.time_zone'],
      [{ ...base, days: [] }, 'send_window.days'],
      [{ ...base, start: '10:00', end: '09:00' }, 'send_window.end'],
      [{ ...base, start: '25:00' }, 'send_window.start'],
    ] as const) {
      const res = await settings(account, { send_window: window });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
    }
    expect((await call(readSettings, { apiKey: account.apiKey })).body).toEqual({
      send_window: null,
      max_attempts: 2,
      allowed_countries: null,
      max_queued_messages: 100_000,
      smart_encoding: false,
      inbound_dedup_seconds: 120,
    });
  });
});

describe('automatic retry', () => {
  async function failOnce(account: TestAccount, id: string, errorCode?: string) {
    await claimAs(account);
    return call(reportStatus, {
      params: { id },
      body: { status: 'failed', error: 'no signal', ...(errorCode ? { error_code: errorCode } : {}) },
      apiKey: account.deviceKey,
    });
  }

  /** The backoff has passed: the retry is due now. */
  async function dueNow(id: string) {
    await db().update(messages).set({ sendAt: new Date() }).where(eq(messages.id, id));
  }

  it('a retryable failure is tried again after the backoff, charged once; two failures refund once and emit failed once', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    const sent = await sendAs(account);
    const first = await failOnce(account, sent.body.id, 'RESULT_ERROR_NO_SERVICE');
    expect(first.body).toMatchObject({ status: 'queued', attempts: 2 });
    // Queued again, its hand-out still counts for the phone's pacing (lib/messages/pacing.ts `handedOutSql`).
    const counts = await dispatchCounts(db(), account.accountId, [account.phoneId], new Date());
    expect(counts.get(account.phoneId)).toMatchObject({ lastMinute: 1, lastHour: 1, today: 1 });
    expect(new Date(first.body.send_at).getTime()).toBeGreaterThan(Date.now() + 50_000);
    expect((await claimAs(account)).body.data).toEqual([]);
    await dueNow(sent.body.id);
    const second = await failOnce(account, sent.body.id, 'RESULT_ERROR_NO_SERVICE');
    expect(second.body).toMatchObject({ status: 'failed', attempts: 2 });
    expect(await ledgerKinds(sent.body.id)).toEqual(['message_charge', 'refund']);
    const failed = await eventsOf(account.accountId, 'message.failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]?.payload).toMatchObject({ id: sent.body.id, attempts: 2 });
    const read = await call(readMessage, { params: { id: sent.body.id }, apiKey: account.apiKey });
    expect(read.body.history.map((h: { status: string }) => h.status)).toEqual([
      'queued',
      'dispatched',
      'retrying',
      'dispatched',
      'failed',
    ]);
  });

  it('a retried message that then goes out is delivered, charged once', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    const sent = await sendAs(account);
    await failOnce(account, sent.body.id, 'RESULT_ERROR_RADIO_OFF');
    await dueNow(sent.body.id);
    expect((await claimAs(account)).body.data.map((m: { id: string }) => m.id)).toEqual([sent.body.id]);
    await call(reportStatus, { params: { id: sent.body.id }, body: { status: 'sent' }, apiKey: account.deviceKey });
    expect(await ledgerKinds(sent.body.id)).toEqual(['message_charge']);
  });

  it('a final failure is not retried', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    const sent = await sendAs(account);
    const res = await failOnce(account, sent.body.id);
    expect(res.body).toMatchObject({ status: 'failed', attempts: 1 });
  });
});

describe('destination country allow-list', () => {
  it('a disallowed country answers 422 naming it and charges nothing', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    expect((await settings(account, { allowed_countries: ['us', 'CA'] })).body.allowed_countries).toEqual(['US', 'CA']);
    const res = await sendAs(account, { to: '+33612345679' });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'RECIPIENT_COUNTRY_NOT_ALLOWED', country: 'FR' });
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(5);
    expect((await sendAs(account)).status).toBe(201);
  });

  it('a bulk with 2 disallowed of 10 charges 8 and lists the 2', async () => {
    const account = await createTestAccount(db(), { credits: 20 });
    await settings(account, { allowed_countries: ['US'] });
    const recipients = Array.from({ length: 8 }, () => testNumber());
    recipients.splice(3, 0, '+447911123457');
    recipients.push('+33612345678');
    const res = await call(sendBulk, {
      body: { from: account.phone, recipients, content: 'x' },
      apiKey: account.apiKey,
    });
    expect(res.status).toBe(201);
    expect(res.body.count).toBe(8);
    expect(res.body.rejected.map((row: { index: number; code: string }) => [row.index, row.code])).toEqual([
      [3, 'RECIPIENT_COUNTRY_NOT_ALLOWED'],
      [9, 'RECIPIENT_COUNTRY_NOT_ALLOWED'],
    ]);
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(12);
  });

  it('refuses an unknown country code, naming the field', async () => {
    const account = await createTestAccount(db());
    const res = await settings(account, { allowed_countries: ['US', 'XX'] });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([expect.objectContaining({ path: 'allowed_countries.1' })]);
  });
});
