import { type SQL, sql } from 'drizzle-orm';

/**
 * `moveCredits(-1, 'message_charge')` written as two CTEs of the caller's single statement, so a
 * send is one round trip and holds its group's row lock only while that statement runs (a
 * transaction around several statements would hold it across all their round trips, and every
 * send of the group waits behind it). The rule is the same as moveCredits': a guarded balance
 * update (`balance >= 1`, the table's CHECK behind it) and its ledger row with the exact balance
 * after the charge.
 *
 * - `charged (group_id, balance_after)`: one credit taken from the group `groupId` yields, when
 *   the balance covers it and `when` holds; no row otherwise (nothing moved).
 * - `charge_ledger`: the ledger row of the charge for the message of the CTE `paidFor` (a CTE
 *   yielding `id`, normally the insert that selects from `charged`).
 */
export function messageChargeCtes(charge: { accountId: string; groupId: SQL; when: SQL; paidFor: string }): {
  charged: SQL;
  ledger: SQL;
} {
  const paidFor = sql.identifier(charge.paidFor);
  return {
    charged: sql`charged as (
      update phone_groups set balance = balance - 1
      where id = (${charge.groupId}) and account_id = ${charge.accountId}::uuid and balance >= 1 and (${charge.when})
      returning id as group_id, balance as balance_after
    )`,
    ledger: sql`charge_ledger as (
      insert into credit_ledger (account_id, group_id, kind, amount, balance_after, message_id)
      select ${charge.accountId}::uuid, charged.group_id, 'message_charge', -1, charged.balance_after, ${paidFor}.id
      from charged, ${paidFor}
    )`,
  };
}
