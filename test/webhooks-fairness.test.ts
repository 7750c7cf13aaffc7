import { and, eq, gt, isNotNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookDeliveries } from '@/db/schema';
import { config } from '@/lib/config';
import { emitEvent } from '@/lib/events/emit';
import { startWebhookWork } from '@/lib/webhooks/background';
import { createWebhook } from '@/lib/webhooks/manage';
import { claimDueDeliveries } from '@/lib/webhooks/worker';
import { createTestAccount, type TestAccount } from './fixtures';
import { createTestCertificates, eventually, gate, type Receiver, startReceiver } from './fixtures/tls/receiver';
import { withTestDatabase } from './setup-db';

process.env.APP_SECRET ??= 'test-app-secret-for-webhooks-0123456789abcdef';

const { db } = withTestDatabase();

let receiver: Receiver;
/** Holds every post to /tarpit until the test ends (the worker's 10 s timeout is never reached). */
const tarpit = gate();

beforeAll(async () => {
  const certs = createTestCertificates();
  process.env.NODE_EXTRA_CA_CERTS = certs.caFile;
  receiver = await startReceiver(certs);
  receiver.respond(async (hit) => {
    if (hit.path.startsWith('/tarpit')) await tarpit.wait;
    return { status: 200 };
  });
});

afterAll(async () => {
  tarpit.open();
  await receiver?.close();
});

async function emitReceived(account: TestAccount): Promise<string> {
  return db().transaction((tx) =>
    emitEvent(tx, { accountId: account.accountId, type: 'message.received', phone: account.phone, data: {} }),
  );
}

/** An account with the free plan's every webhook pointed at the tarpit, and `events` events for each. */
async function tarpitAccount(events: number): Promise<TestAccount> {
  const account = await createTestAccount(db());
  for (let n = 0; n < config.planLimits.free.webhooks; n++) {
    await createWebhook(db(), account.accountId, { url: receiver.url(`/tarpit/${n}`), events: ['message.received'] });
  }
  for (let n = 0; n < events; n++) await emitReceived(account);
  return account;
}

describe('fair delivery between accounts', () => {
  it('an account whose receivers never answer holds its share of the worker, and another account’s delivery goes out at once', async () => {
    const perAccount = config.webhookAccountInFlight;
    // 10 webhooks × 6 events: more posts than the worker keeps in flight (50).
    const slow = await tarpitAccount(6);
    const healthy = await createTestAccount(db());
    await createWebhook(db(), healthy.accountId, { url: receiver.url('/healthy'), events: ['message.received'] });

    const stop = await startWebhookWork();
    try {
      await eventually(
        () => receiver.hits.filter((hit) => hit.path.startsWith('/tarpit')).length >= perAccount,
        10_000,
      );
      const emitted = performance.now();
      await emitReceived(healthy);
      await eventually(() => receiver.hitsFor('/healthy').length === 1, 3_000);
      expect(performance.now() - emitted).toBeLessThan(3_000);

      // The tarpit's posts are still stuck, and no more of them than its share went out.
      expect(receiver.hits.filter((hit) => hit.path.startsWith('/tarpit'))).toHaveLength(perAccount);
      const held = await db()
        .select({ id: webhookDeliveries.id })
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.accountId, slow.accountId), isNotNull(webhookDeliveries.lockedUntil)));
      expect(held).toHaveLength(perAccount);
    } finally {
      tarpit.open();
      await stop();
    }
  });
});

describe('the claim', () => {
  it('counts every worker’s claims: an account at its share gets nothing more, the others share the batch round-robin', async () => {
    await db().update(webhookDeliveries).set({ status: 'succeeded' });
    const [first, second] = [await tarpitAccount(1), await tarpitAccount(1)];
    const now = new Date(Date.now() + 60_000);

    // One worker's claim: each account gets at most 3, though the batch has room for 8.
    const one = await claimDueDeliveries(db(), { now, limit: 8, perAccount: 3 });
    expect(one).toHaveLength(6);
    const inFlight = async (account: TestAccount) =>
      db()
        .select({ id: webhookDeliveries.id })
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.accountId, account.accountId), gt(webhookDeliveries.lockedUntil, now)));
    expect(await inFlight(first)).toHaveLength(3);
    expect(await inFlight(second)).toHaveLength(3);

    // Another worker's claim sees them in flight: nothing for either until one is done.
    expect(await claimDueDeliveries(db(), { now, limit: 8, perAccount: 3 })).toEqual([]);
    const third = await tarpitAccount(1);
    const another = await claimDueDeliveries(db(), { now, limit: 8, perAccount: 3 });
    expect(another).toHaveLength(3);
    expect(await inFlight(third)).toHaveLength(3);

    // A small batch goes round the accounts first: one each before a second of any.
    await db().update(webhookDeliveries).set({ lockedUntil: null });
    const small = await claimDueDeliveries(db(), { now, limit: 3, perAccount: 3 });
    const owners = await Promise.all(
      small.map(async (claim) => {
        const [row] = await db()
          .select({ accountId: webhookDeliveries.accountId })
          .from(webhookDeliveries)
          .where(eq(webhookDeliveries.id, claim.id));
        return row!.accountId;
      }),
    );
    expect(new Set(owners)).toEqual(new Set([first.accountId, second.accountId, third.accountId]));
  });
});
