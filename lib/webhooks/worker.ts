import { and, eq, isNotNull, type SQL, sql } from 'drizzle-orm';
import { type Database, queryRows, type Transaction, withQueryOrigin } from '@/db';
import { accountByAccountWhenDistributed, isDistributed } from '@/db/distributed';
import { events, webhookAttempts, webhookDeliveries, webhooks } from '@/db/schema';
import { actOnWebhookReply } from '@/lib/automation/webhook-reply';
import { config } from '@/lib/config';
import { log } from '@/lib/log';
import { webhookAttempted } from '@/lib/metrics/record';
import { SQLSTATE, sqlState } from '@/lib/transactions';
import { type DisabledWebhook, disableFailingWebhook, tellOwnerWebhookDisabled } from './auto-disable';
import { type DeliveryRequest, webhookFormat } from './formats';
import { type PostOutcome, postWebhook, REPLY_BODY_LIMIT } from './http-client';
import { type AttemptVerdict, nextAttemptAt, verdictOf } from './retry-policy';
import type { NetworkPolicy } from './ssrf';
import { currentNetworkPolicy } from './validate';

/**
 * Delivery from the durable log. A worker claims due rows (FOR UPDATE SKIP LOCKED, so workers
 * never share one) by setting `locked_until` and committing; it posts outside any transaction,
 * then records the attempt and the next state only if its claim still holds. A worker that dies
 * mid-flight leaves a claim that simply runs out, and the delivery is attempted again:
 * at-least-once, never lost.
 */

/** A claim outlives the 10 s post many times over. */
export const CLAIM_MS = 60_000;
export const DEFAULT_BATCH_SIZE = 20;

export type ClaimedDelivery = {
  id: string;
  /** The delivery's account: every statement on the claimed delivery names it. */
  accountId: string;
  attemptCount: number;
  /** The time the claim was made by: attempts and retries are scheduled from it. */
  claimedAt: Date;
  /** The claim's `locked_until`, which also fences the result: a stale claim records nothing but its attempt. */
  lockedUntil: Date;
};

export type DeliveryResult = {
  deliveryId: string;
  eventId: string;
  /** `superseded`: the claim ran out before the answer came, and another claim owns the delivery. */
  verdict: AttemptVerdict | 'superseded';
  statusCode: number | null;
  nextAttemptAt: Date | null;
};

async function databaseNow(db: Database): Promise<Date> {
  const [row] = await queryRows<{ now: Date | string }>(db, sql`select now() as now`);
  return new Date(row!.now);
}

/** Serialises claims across workers, so that each counts the others' claims (see claimDueDeliveries). */
const CLAIM_LOCK = 'webhook_deliveries:claim';

/**
 * Claims up to `limit` due pending deliveries of enabled webhooks (a disabled webhook's deliveries
 * wait), fairly: no account gets more than `perAccount` (WEBHOOK_ACCOUNT_IN_FLIGHT) in flight,
 * counting the claims every worker holds (`locked_until` still ahead), and the accounts share the
 * batch round-robin, oldest first within each. An account whose receivers are slow thus holds a
 * few slots while the others' deliveries go out, and its backlog costs the claim nothing: the
 * claim walks the accounts with pending deliveries (a skip scan of the account index) and reads
 * at most `perAccount` rows of each. The claims take turns under an advisory lock, so that two
 * workers claiming at once do not both hand out an account's share. `now` defaults to the
 * database's clock, which every instance shares.
 */
export async function claimDueDeliveries(
  db: Database,
  options: { now?: Date; limit?: number; perAccount?: number } = {},
): Promise<ClaimedDelivery[]> {
  return withQueryOrigin('task:webhook claim', async () => {
    const now = options.now ?? (await databaseNow(db));
    const at = sql`${now.toISOString()}::timestamptz`;
    const lockedUntil = new Date(now.getTime() + CLAIM_MS);
    const perAccount = options.perAccount ?? config.webhookAccountInFlight;
    const limit = options.limit ?? DEFAULT_BATCH_SIZE;
    // Asked before the transaction, so that the answer is known inside it without a second connection.
    await isDistributed(db);
    const rows = await db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${CLAIM_LOCK}))`);
      const claimed: ClaimedRow[] = [];
      await accountByAccountWhenDistributed(
        db,
        () => accountsWithDueDeliveries(tx, at, limit),
        async (accountId, room) => {
          const share = await queryRows<ClaimedRow>(
            tx,
            accountId
              ? accountClaim(accountId, { at, lockedUntil, perAccount, room })
              : everyAccountClaim({ at, lockedUntil, perAccount, limit }),
          );
          claimed.push(...share);
          return share.length;
        },
        limit,
      );
      return claimed;
    });
    return rows.map((row) => ({
      id: row.id,
      accountId: row.account_id,
      attemptCount: Number(row.attempt_count),
      claimedAt: now,
      lockedUntil,
    }));
  });
}

type ClaimedRow = { id: string; account_id: string; attempt_count: number };
type ClaimShape = { at: SQL; lockedUntil: Date; perAccount: number };

/** The one-statement claim of a single PostgreSQL: a fair share of every account's due deliveries. */
function everyAccountClaim({ at, lockedUntil, perAccount, limit }: ClaimShape & { limit: number }): SQL {
  return sql`
        with recursive pending_accounts(account_id) as (
          (select account_id from webhook_deliveries where status = 'pending' order by account_id limit 1)
          union all
          select (
            select d.account_id from webhook_deliveries d
            where d.status = 'pending' and d.account_id > p.account_id
            order by d.account_id limit 1
          )
          from pending_accounts p
          where p.account_id is not null
        ),
        candidates as (
          select due.id, due.next_attempt_at, due.slot
          from pending_accounts a
          cross join lateral (
            select count(*) as in_flight from webhook_deliveries b
            where b.account_id = a.account_id and b.status = 'pending' and b.locked_until >= ${at}
          ) busy
          cross join lateral (
            select d.id, d.next_attempt_at, busy.in_flight + row_number() over (order by d.next_attempt_at) as slot
            from webhook_deliveries d
            join webhooks w on w.id = d.webhook_id
            where d.account_id = a.account_id
              and d.status = 'pending'
              and d.next_attempt_at <= ${at}
              and (d.locked_until is null or d.locked_until < ${at})
              and w.enabled
            order by d.next_attempt_at
            limit greatest(${perAccount} - busy.in_flight, 0)
          ) due
          where a.account_id is not null
        )
        update webhook_deliveries
        set locked_until = ${lockedUntil.toISOString()}::timestamptz
        where id in (
          select d.id
          from webhook_deliveries d
          where d.id in (select id from candidates order by slot, next_attempt_at limit ${limit})
            and d.status = 'pending'
            and (d.locked_until is null or d.locked_until < ${at})
          for update of d skip locked
        )
        returning id, account_id, attempt_count
      `;
}

/** The accounts with due deliveries, oldest due first, read without a lock (a Citus database's claim). */
async function accountsWithDueDeliveries(tx: Transaction, at: SQL, limit: number): Promise<string[]> {
  const rows = await queryRows<{ account_id: string }>(
    tx,
    sql`select account_id from webhook_deliveries
        where status = 'pending' and next_attempt_at <= ${at} and (locked_until is null or locked_until < ${at})
        group by account_id order by min(next_attempt_at) limit ${limit}`,
  );
  return rows.map((row) => row.account_id);
}

/**
 * One account's share on a Citus database, where a statement locks rows of one shard only: the
 * share and the order within the account are those of the one-statement claim, up to `room`.
 */
function accountClaim(accountId: string, { at, lockedUntil, perAccount, room }: ClaimShape & { room: number }): SQL {
  const account = sql`${accountId}::uuid`;
  return sql`update webhook_deliveries set locked_until = ${lockedUntil.toISOString()}::timestamptz
    where account_id = ${account} and id in (
      select d.id from webhook_deliveries d
      join webhooks w on w.account_id = d.account_id and w.id = d.webhook_id
      where d.account_id = ${account} and d.status = 'pending' and d.next_attempt_at <= ${at}
        and (d.locked_until is null or d.locked_until < ${at}) and w.enabled
      order by d.next_attempt_at
      limit least(${room}, greatest(${perAccount} - (
        select count(*) from webhook_deliveries b
        where b.account_id = ${account} and b.status = 'pending' and b.locked_until >= ${at}), 0))
      for update of d skip locked
    )
    returning id, account_id, attempt_count`;
}

async function loadDelivery(db: Database, claim: ClaimedDelivery) {
  const [row] = await db
    .select({
      eventId: events.id,
      eventType: events.type,
      eventPayload: events.payload,
      eventCreatedAt: events.createdAt,
      eventPhone: events.phone,
      webhookId: webhooks.id,
      kind: webhooks.kind,
      extId: webhooks.extId,
      extEvent: webhooks.extEvent,
      accountId: webhooks.accountId,
      acceptReplies: webhooks.acceptReplies,
      url: webhooks.url,
      secretEncrypted: webhooks.secretEncrypted,
      previousSecretEncrypted: webhooks.previousSecretEncrypted,
      previousSecretExpiresAt: webhooks.previousSecretExpiresAt,
    })
    .from(webhookDeliveries)
    .innerJoin(events, and(eq(events.accountId, webhookDeliveries.accountId), eq(events.id, webhookDeliveries.eventId)))
    .innerJoin(
      webhooks,
      and(eq(webhooks.accountId, webhookDeliveries.accountId), eq(webhooks.id, webhookDeliveries.webhookId)),
    )
    .where(and(eq(webhookDeliveries.accountId, claim.accountId), eq(webhookDeliveries.id, claim.id)));
  return row;
}

export type LoadedDelivery = NonNullable<Awaited<ReturnType<typeof loadDelivery>>>;

async function post(
  db: Database,
  delivery: LoadedDelivery,
  claimedAt: Date,
  policy: NetworkPolicy,
  timeoutMs?: number,
): Promise<PostOutcome> {
  let request: DeliveryRequest;
  try {
    request = await webhookFormat(delivery.kind).request(db, delivery, claimedAt);
  } catch (error) {
    // An unreadable secret (APP_SECRET changed) may be fixed: retried like a network error.
    return {
      statusCode: null,
      latencyMs: 0,
      error: `could not sign: ${(error as Error).message}`,
      responseBody: null,
      retryAfter: null,
      refused: false,
    };
  }
  return postWebhook(
    delivery.url,
    request.body,
    request.headers,
    policy,
    timeoutMs,
    readsReply(delivery) ? REPLY_BODY_LIMIT : undefined,
  );
}

/** A delivery whose answer may carry a reply to send (lib/automation/webhook-reply.ts). */
function readsReply(delivery: LoadedDelivery): boolean {
  return delivery.acceptReplies && delivery.eventType === 'message.received';
}

/** Acts on the reply a 2xx answer carries, if the webhook accepts replies; what the log shows of it. */
async function replyOf(db: Database, delivery: LoadedDelivery, outcome: PostOutcome): Promise<string | null> {
  const code = outcome.statusCode;
  if (!readsReply(delivery) || code === null || code < 200 || code >= 300) return null;
  const inboundMessageId = (delivery.eventPayload as { id?: unknown }).id;
  if (typeof inboundMessageId !== 'string') return null;
  const actOnReply = webhookFormat(delivery.kind).actOnReply ?? actOnWebhookReply;
  return actOnReply(
    db,
    { accountId: delivery.accountId, webhookId: delivery.webhookId, inboundMessageId },
    { contentType: outcome.contentType ?? null, body: outcome.fullBody ?? null, truncated: outcome.truncated === true },
  );
}

function attemptError(outcome: PostOutcome): string | null {
  if (outcome.error) return outcome.error;
  const code = outcome.statusCode;
  if (code === null || (code >= 200 && code < 300)) return null;
  return code >= 300 && code < 400 ? `answered HTTP ${code} (redirects are not followed)` : `answered HTTP ${code}`;
}

/** Records the attempt and moves the delivery on, if the claim still holds. */
async function recordAttempt(
  db: Database,
  claim: ClaimedDelivery,
  delivery: LoadedDelivery,
  outcome: PostOutcome,
  replyResult: string | null = null,
): Promise<{ result: DeliveryResult; disabled?: DisabledWebhook }> {
  const now = claim.claimedAt;
  const verdict = verdictOf(outcome);
  const error = attemptError(outcome);
  const honoursRetryAfter = outcome.statusCode === 429 || outcome.statusCode === 503;
  const retryAt =
    verdict === 'retry'
      ? nextAttemptAt(claim.attemptCount + 1, now, honoursRetryAfter ? outcome.retryAfter : null)
      : null;
  const status = verdict === 'succeeded' ? 'succeeded' : retryAt ? 'pending' : 'failed';
  const result: DeliveryResult = {
    deliveryId: claim.id,
    eventId: delivery.eventId,
    verdict: status === 'pending' ? 'retry' : status,
    statusCode: outcome.statusCode,
    nextAttemptAt: retryAt,
  };

  return db.transaction(async (tx) => {
    await tx.insert(webhookAttempts).values({
      accountId: delivery.accountId,
      deliveryId: claim.id,
      attemptedAt: now,
      statusCode: outcome.statusCode,
      latencyMs: outcome.latencyMs,
      error,
      responseBody: outcome.responseBody,
      replyResult,
    });
    const moved = await tx
      .update(webhookDeliveries)
      .set({
        status,
        attemptCount: sql`${webhookDeliveries.attemptCount} + 1`,
        ...(retryAt ? { nextAttemptAt: retryAt } : {}),
        lockedUntil: null,
        lastStatusCode: outcome.statusCode,
        lastError: error,
        updatedAt: now,
      })
      .where(
        and(
          eq(webhookDeliveries.accountId, claim.accountId),
          eq(webhookDeliveries.id, claim.id),
          eq(webhookDeliveries.lockedUntil, claim.lockedUntil),
        ),
      )
      .returning({ id: webhookDeliveries.id });
    if (moved.length === 0) {
      await tx
        .update(webhookDeliveries)
        .set({ attemptCount: sql`${webhookDeliveries.attemptCount} + 1` })
        .where(and(eq(webhookDeliveries.accountId, claim.accountId), eq(webhookDeliveries.id, claim.id)));
      return { result: { ...result, verdict: 'superseded' as const, nextAttemptAt: null } };
    }
    if (status === 'succeeded') {
      await tx
        .update(webhooks)
        .set({ failingSince: null })
        .where(
          and(
            eq(webhooks.accountId, claim.accountId),
            eq(webhooks.id, delivery.webhookId),
            isNotNull(webhooks.failingSince),
          ),
        );
      return { result };
    }
    await tx
      .update(webhooks)
      .set({ failingSince: sql`coalesce(${webhooks.failingSince}, ${now.toISOString()}::timestamptz)` })
      .where(and(eq(webhooks.accountId, claim.accountId), eq(webhooks.id, delivery.webhookId)));
    const disabled =
      status === 'failed'
        ? await disableFailingWebhook(tx, { accountId: claim.accountId, id: delivery.webhookId }, now, error)
        : undefined;
    return { result, disabled };
  });
}

/** Posts one claimed delivery and records what happened. */
export async function deliverClaimed(
  db: Database,
  claim: ClaimedDelivery,
  policy: NetworkPolicy = currentNetworkPolicy(),
  postTimeoutMs?: number,
): Promise<DeliveryResult | undefined> {
  return withQueryOrigin('task:webhook delivery', async () => {
    const delivery = await loadDelivery(db, claim);
    // Deleted with its webhook since the claim: nothing left to deliver.
    if (!delivery) return undefined;
    const outcome = await post(db, delivery, claim.claimedAt, policy, postTimeoutMs);
    let recorded: Awaited<ReturnType<typeof recordAttempt>>;
    try {
      // The reply first: once sent it is never sent again (messages_origin_key), so a worker that
      // dies before recording the attempt only makes the retry find it answered.
      const replyResult = await replyOf(db, delivery, outcome);
      recorded = await recordAttempt(db, claim, delivery, outcome, replyResult);
    } catch (error) {
      // The webhook was deleted while its post was in flight: its log went with it.
      if (sqlState(error) === SQLSTATE.foreignKeyViolation) {
        webhookAttempted('dropped', outcome.latencyMs / 1000);
        return undefined;
      }
      throw error;
    }
    webhookAttempted(recorded.result.verdict, outcome.latencyMs / 1000);
    if (recorded.disabled) await tellOwnerWebhookDisabled(db, recorded.disabled);
    return recorded.result;
  });
}

/**
 * One claim-and-post pass: claims up to `limit` due deliveries, posts them concurrently and
 * records every attempt. `now` drives the clock in tests.
 */
export async function runDeliveryBatch(
  db: Database,
  options: { now?: Date; limit?: number; policy?: NetworkPolicy; postTimeoutMs?: number } = {},
): Promise<DeliveryResult[]> {
  const claimed = await claimDueDeliveries(db, options);
  const policy = options.policy ?? currentNetworkPolicy();
  const settled = await Promise.allSettled(
    claimed.map((claim) => deliverClaimed(db, claim, policy, options.postTimeoutMs)),
  );
  const failures = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
  for (const failure of failures) log.error({ err: failure.reason }, 'webhook delivery could not be recorded');
  if (failures.length > 0) throw failures[0]!.reason;
  return settled.flatMap((s) => (s.status === 'fulfilled' && s.value ? [s.value] : []));
}
