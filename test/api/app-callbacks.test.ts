import { and, eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from '@/db/client';
import { appCallbackIds, heartbeats, messages, phones } from '@/db/schema';
import { handleAppCallback } from '@/lib/protocols/smsgate-app/callback';
import { appSignature } from '@/lib/protocols/smsgate-app/signature';
import { onRealPostgres } from '../database';
import { createTestAccount, type TestAccount } from '../fixtures';
import { withTestDatabase } from '../setup-db';
import { gsonJson, type PairedApp, pairVerifiedApp, pullAs, signedCallback } from '../smsgate-app';

const { db, handle } = withTestDatabase();

let account: TestAccount;
let app: PairedApp;
beforeAll(async () => {
  account = await createTestAccount(db(), { credits: 10 });
  app = await pairVerifiedApp(account);
  await pullAs(app);
});

/** Puts the phone back to offline, last heard from an hour ago: what a replayed ping must not undo. */
async function makeStale(): Promise<Date> {
  const long = new Date(Date.now() - 3600_000);
  await db().update(phones).set({ status: 'offline', lastHeartbeatAt: long }).where(eq(phones.id, account.phoneId));
  return long;
}

async function phoneRow() {
  const [row] = await db().select().from(phones).where(eq(phones.id, account.phoneId));
  return row!;
}

const ping = { health: { checks: { 'battery:level': { observedValue: 55 } } } };

describe('a replayed signed callback (the same id within the window)', () => {
  it('system:ping: both answer 2xx; the replay records no heartbeat and keeps the phone offline', async () => {
    const timestamp = Math.floor(Date.now() / 1000);
    const first = await signedCallback(app, 'system:ping', ping, { id: 'ping-replay-1', timestamp });
    expect(first.status).toBe(200);
    expect((await phoneRow()).status).toBe('online');
    const stale = await makeStale();
    const beatsBefore = await db().$count(heartbeats, eq(heartbeats.phoneId, account.phoneId));

    const replay = await signedCallback(app, 'system:ping', ping, { id: 'ping-replay-1', timestamp });
    expect(replay.status).toBe(200);
    expect(replay.contentType).toBe('application/json');
    const after = await phoneRow();
    expect(after.status).toBe('offline');
    expect(after.lastHeartbeatAt?.getTime()).toBe(stale.getTime());
    expect(await db().$count(heartbeats, eq(heartbeats.phoneId, account.phoneId))).toBe(beatsBefore);

    // A new call (a new id) still counts.
    expect((await signedCallback(app, 'system:ping', ping, { id: 'ping-replay-2' })).status).toBe(200);
    expect((await phoneRow()).status).toBe('online');
  });

  it('sms:received: the replay answers 2xx and creates no second message, even with another messageId', async () => {
    const payload = { messageId: 'aa01', message: 'replayed text', sender: '+14155550177' };
    expect((await signedCallback(app, 'sms:received', payload, { id: 'sms-replay-1' })).status).toBe(200);
    // The same call id with a changed body (as a forger holding an old id would try) changes nothing either.
    const again = await signedCallback(app, 'sms:received', { ...payload, messageId: 'aa02' }, { id: 'sms-replay-1' });
    expect(again.status).toBe(200);
    const rows = await db()
      .select()
      .from(messages)
      .where(and(eq(messages.phoneId, account.phoneId), eq(messages.content, 'replayed text')));
    expect(rows).toHaveLength(1);
  });

  it('a call that failed leaves no id behind: its retry with the same id is processed', async () => {
    const bad = await signedCallback(app, 'sms:received', { messageId: 'bb01', message: 'x' }, { id: 'retry-1' });
    expect(bad.status).toBe(400);
    const good = await signedCallback(
      app,
      'sms:received',
      { messageId: 'bb01', message: 'retried text', sender: '+14155550178' },
      { id: 'retry-1' },
    );
    expect(good.status).toBe(200);
    expect(await db().$count(messages, eq(messages.content, 'retried text'))).toBe(1);
  });

  it('ids are per device, and ids older than the window are pruned by the next call', async () => {
    const other = await pairVerifiedApp(await createTestAccount(db()));
    expect((await signedCallback(other, 'system:ping', ping, { id: 'ping-replay-1' })).status).toBe(200);
    expect(
      await db().$count(
        heartbeats,
        sql`${heartbeats.phoneId} = (select id from phones where phone = ${other.phone} limit 1)`,
      ),
    ).toBeGreaterThan(0);

    await db()
      .update(appCallbackIds)
      .set({ createdAt: new Date(Date.now() - 3600_000) })
      .where(eq(appCallbackIds.deviceId, app.deviceId));
    expect((await signedCallback(app, 'system:ping', ping, { id: 'prune-trigger' })).status).toBe(200);
    const left = await db().select().from(appCallbackIds).where(eq(appCallbackIds.deviceId, app.deviceId));
    expect(left.map((row) => row.callbackId)).toEqual(['prune-trigger']);
  });

  it.runIf(onRealPostgres())(
    'holds across instances: the same call at two pools at once is processed once',
    async () => {
      const url = new URL(process.env.TEST_DATABASE_URL!);
      url.pathname = `/${handle().name}`;
      const otherInstance = openPostgres(url.toString(), { max: 2 });
      try {
        const body = gsonJson({
          id: 'both-instances',
          event: 'sms:received',
          deviceId: app.deviceId,
          payload: { messageId: 'cc01', message: 'raced text', sender: '+14155550179' },
        });
        const raw = new TextEncoder().encode(body);
        const timestamp = String(Math.floor(Date.now() / 1000));
        const headers = { signature: appSignature(app.signingKey, raw, timestamp), timestamp };
        await Promise.all([
          handleAppCallback(db(), app.deviceId, raw, headers),
          handleAppCallback(otherInstance.db, app.deviceId, raw, headers),
        ]);
        expect(await db().$count(messages, eq(messages.content, 'raced text'))).toBe(1);
        expect(await db().$count(appCallbackIds, eq(appCallbackIds.callbackId, 'both-instances'))).toBe(1);
      } finally {
        await otherInstance.close();
      }
    },
  );
});

describe('the sender of sms:received', () => {
  const received = (sender: string, id: string) =>
    signedCallback(app, 'sms:received', { messageId: id, message: `from ${id}`, sender });

  it('refuses 128 characters with CR/LF with 400 in the app’s error shape, storing nothing', async () => {
    const sender = `ACME\r\nX-Injected: yes${'A'.repeat(128 - 21)}`.slice(0, 128);
    expect(sender).toHaveLength(128);
    const res = await received(sender, 'dd01');
    expect(res.status).toBe(400);
    expect(res.contentType).toBe('application/json');
    expect(res.body.message).toMatch(/sender/);
    expect(res.body.message).toMatch(/payload\.sender/);
    expect(await db().$count(messages, eq(messages.content, 'from dd01'))).toBe(0);
  });

  it.each([
    ['a short sender id with a trailing CR/LF', 'ACME\r\n'],
    ['a tab inside', 'AC\tME'],
    ['a sender id longer than 11 characters', 'ACMECORPORATION'],
    ['an invalid + number', '+1999'],
    ['punctuation', 'ACME<script>'],
  ])('refuses %s with 400', async (_name, sender) => {
    const res = await received(sender, `ee-${sender.length}-${sender.charCodeAt(2)}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toBeTruthy();
  });

  it.each([
    ['an alphanumeric sender id', 'ACME Bank', 'ACME Bank'],
    ['an E.164 number', '+33612345678', '+33612345678'],
    ['a national number, read in the phone’s country', '(415) 555-0142', '+14155550142'],
    ['a short code', '72345', '72345'],
  ])('accepts %s', async (_name, sender, stored) => {
    const id = `ff-${stored.replace(/\W/g, '')}`;
    expect((await received(sender, id)).status).toBe(200);
    const [row] = await db()
      .select()
      .from(messages)
      .where(eq(messages.content, `from ${id}`));
    expect(row?.from).toBe(stored);
  });
});
