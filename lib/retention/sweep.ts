import { setTimeout } from 'node:timers/promises';
import { isNotNull, type SQL, sql } from 'drizzle-orm';
import { type Database, queryRows, withQueryOrigin } from '@/db';
import { accounts, FINAL_MESSAGE_STATUSES } from '@/db/schema';
import { config } from '@/lib/config';
import { derivedKey } from '@/lib/crypto/derived-key';
import { EMAIL_REPLY_WINDOW_DAYS } from '@/lib/email-to-sms/limits';
import { monthKey } from '@/lib/messages/quota';
import { detachMessagesFromWebhooks } from '@/lib/webhooks/detach';
import { type ContentPolicy, contentPolicy, type InstanceRetention } from './policy';

/** What one sweep removes, each reported by its row count. */
export const RETENTION_KINDS = [
  'message_content',
  'webhook_attempts',
  'webhook_deliveries',
  'events',
  'heartbeats',
  'audit_log',
  'verification_codes',
  'pairing_codes',
  'status_callbacks',
  'smpp_deliveries',
  'smpp_submits',
  'monthly_recipients',
  'email_sms_senders',
] as const;
export type RetentionKind = (typeof RETENTION_KINDS)[number];
export type RetentionReport = Record<RetentionKind, number>;

const DAY_MS = 86_400_000;
/** Expired codes stay a day, so that a late try is still told "expired" rather than "wrong code". */
export const EXPIRED_CODE_GRACE_DAYS = 1;
const DEFAULT_BATCH = 500;
/** A status-callback target used this recently stays: the send that used it may not have committed yet. */
const CALLBACK_GRACE_MS = 3_600_000;
/** A message still `sent` this long after (no delivery report yet) no longer keeps its status callback. */
export const CALLBACK_SENT_WAIT_DAYS = 3;
/**
 * What routes a message's SMPP receipts is kept this long: past the longest a message can still
 * change state (scheduled 30 days ahead, then a TTL of up to 7 days).
 */
export const SMPP_SUBMIT_KEEP_DAYS = 40;
const DEFAULT_BUDGET_MS = 30_000;

/** Milliseconds of pause per millisecond of statements for a duty of `percent` (100: none). */
function idleFor(percent: number): number {
  return (100 - percent) / percent;
}

export type SweepOptions = {
  now?: Date;
  /** The instance's settings (config.retention unless given). */
  settings?: InstanceRetention;
  /** Rows per statement. */
  batchSize?: number;
  /** After this long the sweep stops between batches; the next one goes on where it stopped. */
  budgetMs?: number;
  /** The share of the sweep's time its statements may take, in percent (config.retentionSweepDutyPercent). */
  dutyPercent?: number;
  /** How the sweep waits between batches (a timer unless given). */
  pause?: (ms: number) => Promise<unknown>;
};

/** The rows a sweep may purge, exactly as the partial index `messages_retention_idx` names them. */
const PURGEABLE = sql.raw(
  `content_purged_at is null and status in (${[...FINAL_MESSAGE_STATUSES].map((status) => `'${status}'`).join(', ')})`,
);

/**
 * A text column's bytes, by IMMUTABLE functions only: a database sharded by account (Citus) refuses
 * any other over a column in an UPDATE, which rules out convert_to. `decode(…, 'escape')` reads a
 * text as its bytes in the database's encoding (UTF-8: PGlite's, and PostgreSQL's default), once its
 * backslashes are doubled (the one character that format escapes).
 */
const bytesOf = (column: string) => sql.raw(`decode(replace(${column}, '\\', '\\\\'), 'escape')`);

const sha256Hex = (column: string) => sql`encode(sha256(${bytesOf(column)}), 'hex')`;

const HMAC_BLOCK_BYTES = 64;

/**
 * HMAC-SHA256 of a text column in hex, under a key derived from APP_SECRET: a purged number cannot be
 * found again by hashing every number of a country, as a bare SHA-256 can (10⁴ numbers take
 * milliseconds). Built per RFC 2104 from the sha256() PostgreSQL (and PGlite) has built in, so no
 * extension is needed: H((K ⊕ opad) ‖ H((K ⊕ ipad) ‖ text)).
 */
function counterpartHmacHex(column: string): SQL {
  const key = Buffer.alloc(HMAC_BLOCK_BYTES);
  derivedKey('retention-counterpart').copy(key);
  const inner = Buffer.from(key.map((byte) => byte ^ 0x36)).toString('hex');
  const outer = Buffer.from(key.map((byte) => byte ^ 0x5c)).toString('hex');
  return sql`encode(sha256(decode(${outer}, 'hex') || sha256(decode(${inner}, 'hex') || ${bytesOf(column)})), 'hex')`;
}

/**
 * One retention pass over every kind of old data: each statement handles at most `batchSize` rows
 * it locks with SKIP LOCKED (so instances sweeping at once share the work and never wait on each
 * other), commits on its own, and the pass goes on until nothing is left or the time budget is
 * spent, pausing after each full batch so that its statements take no more than their duty's share
 * of the time (RETENTION_SWEEP_DUTY_PERCENT): the sends that share the database's cores keep their
 * speed while a backlog is purged, at the cost of a slower catch-up. Message rows are never deleted:
 * a final message's content is emptied or hashed and its `content_purged_at` set; a message not
 * final is never touched. Answers the rows per kind.
 */
export async function sweepRetention(db: Database, options: SweepOptions = {}): Promise<RetentionReport> {
  return (await sweepRetentionPass(db, options)).report;
}

/** sweepRetention, also answering whether the pass stopped at its time budget with work left. */
export async function sweepRetentionPass(
  db: Database,
  options: SweepOptions = {},
): Promise<{ report: RetentionReport; workLeft: boolean }> {
  return withQueryOrigin('task:retention sweep', async () => {
    const now = options.now ?? new Date();
    const settings = options.settings ?? config.retention;
    const batch = options.batchSize ?? DEFAULT_BATCH;
    const deadline = Date.now() + (options.budgetMs ?? DEFAULT_BUDGET_MS);
    const idlePerBusy = idleFor(options.dutyPercent ?? config.retentionSweepDutyPercent);
    const pause = options.pause ?? setTimeout;
    const report = Object.fromEntries(RETENTION_KINDS.map((kind) => [kind, 0])) as RetentionReport;
    let workLeft = false;
    const before = (days: number) => new Date(now.getTime() - days * DAY_MS).toISOString();

    /**
     * Runs `count` until it handles fewer rows than a batch, or time is up; after a full batch it
     * pauses in proportion to the batch's time, so that the statements take their duty's share.
     */
    const drain = async (count: () => Promise<Partial<RetentionReport> & { rows: number }>) => {
      for (;;) {
        if (Date.now() >= deadline) {
          workLeft = true;
          return;
        }
        const started = performance.now();
        const { rows, ...counts } = await count();
        for (const [kind, n] of Object.entries(counts)) report[kind as RetentionKind] += n;
        if (rows < batch) return;
        const idle = Math.min((performance.now() - started) * idlePerBusy, deadline - Date.now());
        if (idle > 0) await pause(idle);
      }
    };
    const timestamp = (iso: string): SQL => sql`${iso}::timestamptz`;
    /** Deletes an instance table's rows (GLOBAL_TABLES) with `column` before `cutoff`, a batch at a time. */
    const deleteOldGlobal = (kind: RetentionKind, table: string, column: string, cutoff: string) =>
      drain(async () => {
        const gone = await queryRows<{ one: number }>(
          db,
          sql`delete from ${sql.identifier(table)} where id in (
              select id from ${sql.identifier(table)}
              where ${sql.identifier(column)} < ${cutoff}::timestamptz
              order by ${sql.identifier(column)} limit ${batch} for update skip locked)
            returning 1 as one`,
        );
        return { rows: gone.length, [kind]: gone.length };
      });
    /**
     * Deletes an account table's rows with `column` before `cutoff`: the accounts among the oldest
     * batch are read without locks, then each account's rows go in a statement of its own, with
     * `account_id` fixed (one shard on a database sharded by account). `key` names a row within its
     * account; `also`, a condition the rows (`aged`) must meet besides their age.
     */
    const deleteOld = (kind: RetentionKind, table: string, column: string, cutoff: SQL, key: string[], also?: SQL) =>
      drain(async () => {
        const [t, c] = [sql.identifier(table), sql.identifier(column)];
        const old = also ? sql`${c} < ${cutoff} and ${also}` : sql`${c} < ${cutoff}`;
        const keyList = sql.join(
          key.map((name) => sql.identifier(name)),
          sql`, `,
        );
        let gone = 0;
        for (const accountId of await accountsAmongOldest(
          db,
          sql`select account_id from ${t} aged where ${old}`,
          sql`${c}`,
          batch,
        )) {
          const rows = await queryRows<{ one: number }>(
            db,
            sql`delete from ${t} where account_id = ${accountId} and (${keyList}) in (
                select ${keyList} from ${t} aged where account_id = ${accountId} and ${old}
                order by ${c} limit ${batch} for update skip locked)
              returning 1 as one`,
          );
          gone += rows.length;
        }
        return { rows: gone, [kind]: gone };
      });

    // Message content, account by account: each account's own policy, over its slice of the index.
    const candidates = await db
      .select({
        id: accounts.id,
        contentDays: accounts.retentionContentDays,
        contentMode: accounts.retentionContentMode,
        hashCounterpart: accounts.retentionHashCounterpart,
      })
      .from(accounts)
      .where(settings.contentDays === null ? isNotNull(accounts.retentionContentDays) : undefined);
    for (const account of candidates) {
      const policy = contentPolicy(settings, account);
      if (policy.days === null) continue;
      const cutoff = before(policy.days);
      await drain(async () => {
        const purged = await purgeContent(db, account.id, policy, cutoff, now, batch);
        return { rows: purged, message_content: purged };
      });
    }

    // The webhook delivery log holds each event's payload (message text included): it is kept no
    // longer than message content either.
    const logDays = Math.min(settings.webhookDeliveriesDays, settings.contentDays ?? Number.POSITIVE_INFINITY);
    const logCutoff = before(logDays);
    await drain(async () => {
      const finished = sql`status <> 'pending' and updated_at < ${logCutoff}::timestamptz`;
      let [deliveries, attempts] = [0, 0];
      for (const accountId of await accountsAmongOldest(
        db,
        sql`select account_id from webhook_deliveries aged where ${finished}`,
        sql`updated_at`,
        batch,
      )) {
        const [counts] = await queryRows<{ deliveries: number; attempts: number }>(
          db,
          sql`with picked as (
              select id from webhook_deliveries where account_id = ${accountId} and ${finished}
              order by updated_at limit ${batch} for update skip locked
            ), attempts as (
              delete from webhook_attempts
              where account_id = ${accountId} and delivery_id in (select id from picked) returning 1
            ), deliveries as (
              delete from webhook_deliveries
              where account_id = ${accountId} and id in (select id from picked) returning 1
            )
            select (select count(*) from deliveries)::int as deliveries, (select count(*) from attempts)::int as attempts`,
        );
        deliveries += Number(counts?.deliveries ?? 0);
        attempts += Number(counts?.attempts ?? 0);
      }
      return { rows: deliveries, webhook_deliveries: deliveries, webhook_attempts: attempts };
    });
    // An event no delivery needs any more (its deliveries went above, or it had none).
    await deleteOld(
      'events',
      'events',
      'created_at',
      timestamp(logCutoff),
      ['id'],
      sql`not exists (select 1 from webhook_deliveries d where d.account_id = aged.account_id and d.event_id = aged.id)`,
    );

    await drain(async () => {
      const gone = await pruneStatusCallbacks(
        db,
        new Date(now.getTime() - CALLBACK_GRACE_MS),
        before(CALLBACK_SENT_WAIT_DAYS),
        batch,
      );
      return { rows: gone, status_callbacks: gone };
    });

    await deleteOld('heartbeats', 'heartbeats', 'created_at', timestamp(before(settings.heartbeatsDays)), ['id']);
    await deleteOld('audit_log', 'audit_log', 'created_at', timestamp(before(settings.auditDays)), ['id']);
    await deleteOldGlobal('verification_codes', 'verification_codes', 'expires_at', before(EXPIRED_CODE_GRACE_DAYS));
    await deleteOldGlobal('pairing_codes', 'pairing_codes', 'expires_at', before(EXPIRED_CODE_GRACE_DAYS));
    // SMPP receipts and inbound messages no receiver bind took in their day, of accounts that have not bound since.
    await deleteOld('smpp_deliveries', 'smpp_deliveries', 'expires_at', timestamp(now.toISOString()), ['id']);
    await deleteOld('smpp_submits', 'smpp_submits', 'created_at', timestamp(before(SMPP_SUBMIT_KEEP_DAYS)), [
      'message_id',
    ]);
    // The monthly recipient caps read this month only; the previous one stays for a look back.
    const previousMonth = sql`${monthKey(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)))}::date`;
    await deleteOld('monthly_recipients', 'sim_recipients', 'month', previousMonth, [
      'phone_id',
      'sim',
      'month',
      'recipient',
    ]);
    await deleteOld('monthly_recipients', 'sim_recipient_counts', 'month', previousMonth, ['phone_id', 'sim', 'month']);
    // Who sent an SMS by email is of use only while a reply may be forwarded to them.
    await deleteOld(
      'email_sms_senders',
      'email_sms_senders',
      'created_at',
      timestamp(before(EMAIL_REPLY_WINDOW_DAYS)),
      ['message_id'],
    );
    return { report, workLeft };
  });
}

/**
 * The accounts among the oldest `batch` rows that `rows` (a select of `account_id`) finds in `order`,
 * read without locks: the sweep then handles each account's rows in statements of its own.
 */
async function accountsAmongOldest(db: Database, rows: SQL, order: SQL, batch: number): Promise<string[]> {
  const found = await queryRows<{ account_id: string }>(
    db,
    sql`select distinct account_id from (${rows} order by ${order} limit ${batch}) oldest`,
  );
  return found.map((row) => row.account_id);
}

/**
 * Deletes one batch of status-callback targets (`status_callback_url`, Twilio's StatusCallback) that
 * nothing needs any more: unused since `usedBefore`, no delivery pending, and no message that can still
 * change state points at it (a `sent` one counts until `sentBefore`). Candidates are read without
 * locks across accounts, then each account's are locked (SKIP LOCKED), checked again and deleted in
 * its own transaction, with an `account_id` that picks one shard on a database sharded by account:
 * the finished messages' `callback_webhook_id` is nulled (lib/webhooks/detach.ts) and the foreign key
 * removes the target's delivery log. So STATUS_CALLBACK_URLS_PER_ACCOUNT counts only live targets.
 */
async function pruneStatusCallbacks(
  db: Database,
  usedBefore: Date,
  sentBefore: string,
  batch: number,
): Promise<number> {
  const unused = (account: SQL | undefined) => sql`w.kind in ('callback', 'twilio_callback')
      ${account ? sql`and w.account_id = ${account}` : sql``}
      and w.updated_at < ${usedBefore.toISOString()}::timestamptz
      and not exists (
        select 1 from messages m
        where m.account_id = w.account_id and m.callback_webhook_id = w.id
          and (m.status in ('queued', 'dispatched', 'cancelling')
            or (m.status = 'sent' and m.updated_at >= ${sentBefore}::timestamptz)))
      and not exists (
        select 1 from webhook_deliveries d
        where d.account_id = w.account_id and d.webhook_id = w.id and d.status = 'pending')`;
  const candidates = await queryRows<{ account_id: string; id: string }>(
    db,
    sql`select w.account_id, w.id from webhooks w where ${unused(undefined)} order by w.updated_at limit ${batch}`,
  );
  const byAccount = new Map<string, string[]>();
  for (const row of candidates) byAccount.set(row.account_id, [...(byAccount.get(row.account_id) ?? []), row.id]);
  let gone = 0;
  for (const [accountId, ids] of byAccount) {
    gone += await db.transaction(async (tx) => {
      const locked = await queryRows<{ id: string }>(
        tx,
        sql`select w.id from webhooks w
          where w.id = any(${`{${ids.join(',')}}`}::uuid[]) and ${unused(sql`${accountId}`)}
          for update of w skip locked`,
      );
      const lockedIds = locked.map((row) => row.id);
      if (lockedIds.length === 0) return 0;
      await detachMessagesFromWebhooks(tx, accountId, lockedIds);
      const deleted = await queryRows<{ id: string }>(
        tx,
        sql`delete from webhooks where account_id = ${accountId} and id = any(${`{${lockedIds.join(',')}}`}::uuid[])
          returning id`,
      );
      return deleted.length;
    });
  }
  // Fewer than a batch when some were locked elsewhere or in use again: the next sweep sees them.
  return gone;
}

/**
 * An inbound message's `created_at` is when the phone says it received it, which the phone may put
 * days back; the server received it no earlier than its `updated_at` as stored then (and an
 * inbound message's row is rarely written again). Its age for retention counts from that receipt.
 */
const receivedBefore = (cutoff: string): SQL => sql`(direction <> 'inbound' or updated_at < ${cutoff}::timestamptz)`;

/**
 * Purges one batch of an account's final messages created before `cutoff` (an inbound one also
 * received by this server before it); answers how many.
 */
async function purgeContent(
  db: Database,
  accountId: string,
  policy: ContentPolicy,
  cutoff: string,
  now: Date,
  batch: number,
): Promise<number> {
  const content: SQL = policy.mode === 'delete' ? sql.raw(`''`) : sha256Hex('content');
  const counterpart: SQL = policy.hashCounterpart
    ? sql`, "to" = case when direction = 'outbound' then ${counterpartHmacHex('"to"')} else "to" end,
           "from" = case when direction = 'inbound' then ${counterpartHmacHex('"from"')} else "from" end`
    : sql``;
  const purged = await queryRows<{ one: number }>(
    db,
    sql`update messages set content = ${content}, content_purged_at = ${now.toISOString()}::timestamptz ${counterpart}
        where account_id = ${accountId} and id in (
          select id from messages
          where account_id = ${accountId} and ${PURGEABLE} and created_at < ${cutoff}::timestamptz
            and ${receivedBefore(cutoff)}
          order by created_at limit ${batch} for update skip locked)
          and ${PURGEABLE}
        returning 1 as one`,
  );
  return purged.length;
}

/** The report as one log line's text: `message_content=12 heartbeats=300`, the kinds with rows. */
export function describeReport(report: RetentionReport): string {
  const parts = RETENTION_KINDS.filter((kind) => report[kind] > 0).map((kind) => `${kind}=${report[kind]}`);
  return parts.length > 0 ? parts.join(' ') : 'nothing to remove';
}
