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
    reason:
      'purges what every account keeps past its retention (contents, deliveries, events, heartbeats, audit, unused status-callback targets)',
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
