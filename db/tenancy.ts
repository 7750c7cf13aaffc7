/**
 * Which tables hold one account's data and which are the instance's own: the one list the
 * shard-readiness checks read (test/shard-ready.test.ts for the schema, the query-log check for the
 * statements). Every table not named here is an account table: it carries `account_id`, and its
 * primary key, its unique indexes and its foreign keys to other account tables include it, which is
 * what a distributed PostgreSQL (Citus) needs to spread tables by `account_id` and keep joins on one
 * node. A global table is replicated to every node (a Citus reference table) or stays on the
 * coordinator; each says why it cannot be split by account.
 */
export const GLOBAL_TABLES: Readonly<Record<string, string>> = {
  accounts: 'the account directory: sign-in by email and Twilio AccountSid find an account before its shard is known',
  devices:
    'the device directory: a device key is found by its hash before the account is known, and a device registers before it has one',
  members:
    "the member directory: sign-in by email finds a person's accounts before any account, and so any shard, is known",
  member_invitations:
    'the invitation directory: an invitation link names only its token, found (and accepted at sign-in) before the account is known',
  api_keys: 'the key directory: an API key is found by its hash before the account is known',
  smpp_credentials: 'the SMPP login directory: a bind names only its system_id, found before the account is known',
  pairing_codes:
    'the pairing directory: the SMSGate app sends a code before it belongs to an account, and a live code is unique across the instance; it names its phone without a foreign key (a reference table cannot point into a distributed one)',
  verification_codes: 'codes of registration and sign-in, sent before an account exists or is known',
  app_callback_ids: "the SMSGate app's replayed-call guard, kept per device (the device directory's)",
  rate_limit_hits: "the instance's rate limiter, by key or IP address",
  dev_inbox: "the development mail catcher (DEV_INBOX), the instance's own",
};

export function isAccountTable(name: string): boolean {
  return !Object.hasOwn(GLOBAL_TABLES, name);
}
