import { type SQL, sql } from 'drizzle-orm';
import { optedOutSql } from '@/lib/opt-outs/check';
import { countryAllowedSql, simFitsSql } from './assign';
import { withinRecipientQuota } from './quota';

/**
 * Who may send, written once for the one-statement send (lib/messages/send.ts) and its batch
 * (lib/messages/accept-batch.ts). Each takes SQL for its values: a parameter in the single send,
 * a column of the batch's input in the batch. test/api/send-eligibility.test.ts sends every
 * refusal through both statements.
 */
export type SendFacts = {
  accountId: SQL;
  from: SQL;
  /** The group a group send goes through (null: a send from `from`). */
  fromGroup: SQL;
  sim: SQL;
  to: SQL;
  country: SQL;
  requestId: SQL;
};

/**
 * The sending phone `p` (its device `d` joined): the account's, its SIM not waiting for its check,
 * in the group a group send names.
 */
export function senderMatches(facts: SendFacts): SQL {
  return sql`p.account_id = ${facts.accountId} and p.phone = ${facts.from} and p.sim_verification <> 'pending'
        and ((${facts.fromGroup})::int is null or p.group_id = (${facts.fromGroup})::int)`;
}

/** Whether the sending phone holds the SIM slot asked for (any, when none is). */
export function simFits(facts: SendFacts): SQL {
  return simFitsSql(facts.sim);
}

/** The message that already holds this request_id in the account (none when it is unused or null). */
export function requestIdHolder(facts: SendFacts): SQL {
  return sql`select m.id from messages m where m.account_id = ${facts.accountId} and m.request_id = ${facts.requestId}`;
}

/** Whether the recipient opted out of the account. */
export function recipientOptedOut(facts: SendFacts): SQL {
  return optedOutSql(facts.accountId, facts.to);
}

/** Whether the recipient's country is allowed, with the sender's group `g` and account `a` joined. */
export function countryAllowed(facts: SendFacts): SQL {
  return countryAllowedSql(facts.country);
}

/**
 * Whether the sending phone `p` may text the recipient this month under its monthly recipient cap
 * from the SIM the send counts for, as the snapshot shows (lib/messages/quota.ts: the counter's
 * guard settles a race).
 */
export function recipientWithinQuota(facts: SendFacts): SQL {
  return withinRecipientQuota(facts.accountId, facts.to, facts.sim);
}
