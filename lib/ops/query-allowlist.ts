import type { Allowance } from './query-tenancy';

/**
 * Statements that may touch account tables without `account_id` (lib/ops/query-tenancy.ts): work
 * that spans every account by design. On a database sharded by account these run on every shard
 * (Citus fans them out), which is what they mean to do. Each says why; an entry no statement of the
 * test run needed fails the check, so none outlives its reason.
 */
export const QUERY_ALLOWLIST: readonly Allowance[] = [
  {
    origin: 'task:message expiry sweep',
    reason:
      "expires every account's overdue messages, a batch at a time (SKIP LOCKED); each refund then names its account",
  },
  {
    origin: 'task:offline sweep',
    reason: "marks offline every account's phones whose heartbeat stopped",
  },
  {
    origin: 'task:pause sweep',
    reason:
      "ends every account's phone pauses that are over (SKIP LOCKED), a batch at a time; each phone.resumed then names its account",
  },
  {
    origin: 'task:retention sweep',
    statement:
      /^select (distinct account_id from \(select account_id from "?\w+"? aged where|w\.account_id, w\.id from webhooks w where)/,
    reason:
      'finds, without locks, the accounts among the oldest rows past their retention (deliveries, events, heartbeats, audit, SMPP and email records, monthly recipients, unused status-callback targets); purging each then names its account',
  },
  {
    origin: 'task:statistics rollup',
    statement: /^select distinct account_id from message_daily_counts where stale order by account_id$/,
    reason:
      'the rollup sweep finds, without locks, the accounts with a stale day (message_daily_counts_stale_idx); counting each day then names its account',
  },
  {
    origin: 'task:webhook claim',
    reason:
      "the webhook worker claims due deliveries across accounts, a fair share per account; what follows a claim names the claim's account",
  },
  {
    origin: 'task:stranded reroute',
    reason:
      'finds, without locks, the accounts whose group messages wait on a phone that cannot send; each reroute then names its account',
  },
  {
    origin: 'task:pending automation claim',
    reason:
      "the recovery sweep finds every account's inbound messages whose automation never ran; running one then names its account",
  },
  {
    origin: 'task:email claim',
    reason: "the email worker claims due emails across accounts; sending one then names the claim's account",
  },
  {
    origin: 'task:email outbox pruning',
    reason: "deletes every account's sent and failed emails past their week",
  },
  {
    origin: 'task:alert evaluation',
    reason: "raises and resolves every account's alerts from its phones, groups, queue and webhooks, kind by kind",
  },
  {
    origin: 'task:metrics gauges',
    reason:
      "the instance's totals for Prometheus (queued and dispatched messages, phones by status, pending deliveries)",
  },
  {
    statement:
      /from input i join phones p on p\.account_id = i\.account_id and p\.phone = i\.phone (?!and p\.account_id = \$)/,
    sometimes: true,
    reason:
      "a heartbeat batch that gathered several accounts' beats on a single PostgreSQL, one statement as the bench measures it; on a Citus database (db/distributed.ts) each account's beats go in their own statement, with account_id fixed",
  },
  {
    statement: /from messages m where m\.account_id = p\.account_id and m\.phone_id = p\.phone_id/,
    sometimes: true,
    reason:
      "a claim-probe batch that gathered several accounts' phones on a single PostgreSQL, one statement as the bench measures it; on a Citus database each account's phones go in their own statement, with account_id fixed",
  },
  {
    statement:
      /^with input as materialized \( select \* from jsonb_to_recordset\(\$1::jsonb\) as "i"\("ord" int, "country" text/,
    sometimes: true,
    reason:
      "the batched send (lib/messages/accept-batch.ts) takes several accounts' sends in one statement on a single PostgreSQL, as the bench measures it; on a Citus database (db/distributed.ts) it never runs: every send goes alone, its statement with account_id fixed",
  },
  {
    statement:
      /from "devices" inner join "phones" on \("phones"\."device_id" = "devices"\."id" and "phones"\."account_id" = "devices"\."account_id"/,
    sometimes: true,
    reason:
      "the live-device check (lib/devices/sessions.ts liveDevices) reads several devices' phones by the devices' accounts, one statement for the streams of this process; a read without a lock, joined on account_id, which Citus runs on every shard",
  },
  {
    statement:
      /recorded as \( insert into sim_recipients \(account_id, phone_id, sim, month, recipient\) select distinct m\.account_id, m\.phone_id/,
    sometimes: true,
    reason:
      "the recipient-quota CTEs (lib/messages/quota.ts) join phones on the account_id of the statement's own messages: one account's in a send alone (its CTEs run on Citus, each on the account's shard, test/api/messages.test.ts in Citus mode), several in the batched send and the bulk on a single PostgreSQL; the check cannot see which",
  },
  {
    statement: /from smpp_deliveries where account_id = any\(\$\d+::uuid\[\]\)/,
    sometimes: true,
    reason:
      "an SMPP server's delivery claim takes the deliveries of every account with a receiver bind on it (= any) in one statement on a single PostgreSQL; on a Citus database (db/distributed.ts) it claims account by account, with account_id fixed",
  },
  {
    origin: 'smtp:confirmed sender',
    statement:
      /from "email_addresses" where \("email_addresses"\."email" = \$1 and "email_addresses"\."confirmed_at" is not null\)/,
    reason:
      'Email to SMS without SMTP AUTH (SMTP_ALLOW_CONFIRMED_SENDERS) knows only the sender address: the one account that confirmed it is found by it',
  },
  {
    origin: 'request:confirmEmailAddress',
    statement: /from "email_addresses" where "email_addresses"\."token_hash" = \$1/,
    reason:
      "a confirmation link carries only its token: the address is found by the token's hash before its account is known",
  },
];
