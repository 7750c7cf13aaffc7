import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { POST as received } from '@/app/api/v1/device/messages/received/route';
import { PATCH as patchSending } from '@/app/api/v1/settings/sending/route';
import { events, messages, optOuts } from '@/db/schema';
import { createTestAccount, type TestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';
import { type PairedApp, pairVerifiedApp, pullAs, signedCallback } from '../smsgate-app';

const { db } = withTestDatabase();

function receive(who: TestAccount, body: Record<string, unknown>) {
  return call(received, { body, apiKey: who.deviceKey });
}

async function inboundFrom(who: TestAccount, from: string) {
  return db()
    .select()
    .from(messages)
    .where(and(eq(messages.accountId, who.accountId), eq(messages.direction, 'inbound'), eq(messages.from, from)));
}

async function eventTypes(who: TestAccount): Promise<string[]> {
  const rows = await db().select({ type: events.type }).from(events).where(eq(events.accountId, who.accountId));
  return rows.map((row) => row.type);
}

function setDedup(who: TestAccount, seconds: number) {
  return call(patchSending, { body: { inbound_dedup_seconds: seconds }, apiKey: who.apiKey });
}

describe('a duplicate inbound report (same phone, sender and text within inbound_dedup_seconds)', () => {
  it('answers 200 naming duplicate_of, stores nothing new and emits message.received once', async () => {
    const who = await createTestAccount(db());
    const from = testNumber();
    const first = await receive(who, { from, content: 'Meet at 6', device_message_id: 'sms-1' });
    expect(first.status).toBe(201);
    expect(first.body.duplicate_of).toBeNull();
    const again = await receive(who, { from, content: 'Meet at 6', device_message_id: 'sms-2' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: first.body.id, duplicate_of: first.body.id, content: 'Meet at 6' });
    const noId = await receive(who, { from, content: 'Meet at 6' });
    expect(noId.status).toBe(200);
    expect(noId.body.duplicate_of).toBe(first.body.id);
    expect(await inboundFrom(who, from)).toHaveLength(1);
    expect(await eventTypes(who)).toEqual(['message.received']);
  });

  it('a retry of the same device_message_id still answers 200 without duplicate_of', async () => {
    const who = await createTestAccount(db());
    const from = testNumber();
    const body = { from, content: 'retry me', device_message_id: 'r-1' };
    expect((await receive(who, body)).status).toBe(201);
    const retry = await receive(who, body);
    expect(retry.status).toBe(200);
    expect(retry.body.duplicate_of).toBeNull();
  });

  it('stores a different text, a different sender, and the same text outside the window', async () => {
    const who = await createTestAccount(db());
    const from = testNumber();
    const at = (secondsAgo: number) => new Date(Date.now() - secondsAgo * 1000).toISOString();
    expect((await receive(who, { from, content: 'one', received_at: at(400) })).status).toBe(201);
    expect((await receive(who, { from, content: 'two', received_at: at(399) })).status).toBe(201);
    expect((await receive(who, { from: testNumber(), content: 'one', received_at: at(398) })).status).toBe(201);
    // 121 s after the first: past the default window of 120 s.
    expect((await receive(who, { from, content: 'one', received_at: at(279) })).status).toBe(201);
    // 100 s after that one: within it.
    const dup = await receive(who, { from, content: 'one', received_at: at(179) });
    expect(dup.status).toBe(200);
    expect(dup.body.duplicate_of).not.toBeNull();
    expect(await inboundFrom(who, from)).toHaveLength(3);
  });

  it('inbound_dedup_seconds 0 stores every report (a GPS tracker’s identical reports)', async () => {
    const who = await createTestAccount(db());
    const res = await setDedup(who, 0);
    expect(res.status).toBe(200);
    expect(res.body.inbound_dedup_seconds).toBe(0);
    const from = testNumber();
    for (let i = 0; i < 3; i++) {
      const report = await receive(who, { from, content: 'LAT 52.1 LON 4.3' });
      expect(report.status).toBe(201);
      expect(report.body.duplicate_of).toBeNull();
    }
    expect(await inboundFrom(who, from)).toHaveLength(3);
  });

  it('a duplicate STOP opts the number out once', async () => {
    const who = await createTestAccount(db());
    const from = testNumber();
    expect((await receive(who, { from, content: 'STOP', device_message_id: 'stop-1' })).status).toBe(201);
    expect((await receive(who, { from, content: 'STOP', device_message_id: 'stop-2' })).status).toBe(200);
    expect(await db().$count(optOuts, eq(optOuts.accountId, who.accountId))).toBe(1);
    const types = await eventTypes(who);
    expect(types.filter((type) => type === 'message.received')).toHaveLength(1);
    expect(types.filter((type) => type === 'recipient.opted_out')).toHaveLength(1);
  });

  it('two identical reports at once store one message', async () => {
    const who = await createTestAccount(db());
    const from = testNumber();
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        receive(who, { from, content: 'at once', device_message_id: `concurrent-${i}` }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    const first = results.find((r) => r.status === 201)!;
    for (const r of results.filter((r) => r.status === 200)) expect(r.body.duplicate_of).toBe(first.body.id);
    expect(await inboundFrom(who, from)).toHaveLength(1);
    expect(await eventTypes(who)).toEqual(['message.received']);
  });

  it('refuses an inbound_dedup_seconds out of range, naming the field', async () => {
    const who = await createTestAccount(db());
    for (const seconds of [-1, 86_401, 1.5]) {
      const res = await setDedup(who, seconds);
      expect(res.status).toBe(400);
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain('inbound_dedup_seconds');
    }
  });
});

describe('the SMSGate app reporting one SMS twice under two message ids', () => {
  let who: TestAccount;
  let app: PairedApp;
  beforeAll(async () => {
    who = await createTestAccount(db(), { credits: 10 });
    app = await pairVerifiedApp(who);
    await pullAs(app);
  });

  it('answers both 2xx and records one message', async () => {
    const sender = testNumber();
    const payload = { messageId: 'dd01', message: 'read twice', sender };
    expect((await signedCallback(app, 'sms:received', payload)).status).toBe(200);
    expect((await signedCallback(app, 'sms:received', { ...payload, messageId: 'dd02' })).status).toBe(200);
    expect(await inboundFrom(who, sender)).toHaveLength(1);
  });
});
