import { and, eq, sql } from 'drizzle-orm';
import { type Database, type Executor, queryRows, withQueryOrigin } from '@/db';
import { type AutomationEntry, messages, pendingAutomation } from '@/db/schema';
import { mayForwardRepliesSql } from '@/lib/email-to-sms/replies';
import type { MessageRow } from '@/lib/messages/present';
import { withTransaction } from '@/lib/transactions';
import { runInboundAutomation } from './run';

/** A pending row older than this has lost the request that wrote it: the recovery sweep runs it. */
export const RECOVER_AFTER_SECONDS = 30;
const RECOVERY_BATCH = 20;

export type PendingAutomation = { accountId: string; messageId: string };

/**
 * Marks an inbound message, in the transaction that records it, as waiting for its automation,
 * when the account has anything that could answer it (a rule, a HELP text, or replies to SMS sent by
 * email to forward: lib/email-to-sms/replies.ts). Answers the mark,
 * for the caller to run after the commit (runPendingAutomation), or null.
 */
export async function markAutomationPending(
  tx: Executor,
  message: MessageRow,
  receivedEventId: string | undefined,
): Promise<PendingAutomation | null> {
  const [row] = await queryRows<{ message_id: string }>(
    tx,
    sql`insert into pending_automation (account_id, message_id, event_id)
        select ${message.accountId}::uuid, ${message.id}::uuid, ${receivedEventId ?? null}::uuid
        where exists (select 1 from inbound_rules where account_id = ${message.accountId}::uuid)
           or exists (select 1 from accounts where id = ${message.accountId}::uuid and help_reply is not null)
           or (${mayForwardRepliesSql(message.accountId)})
        returning message_id`,
  );
  return row ? { accountId: message.accountId, messageId: message.id } : null;
}

/**
 * Runs the automation of one recorded inbound message in a transaction of its own, and clears its
 * mark in that transaction: the mark is claimed with SKIP LOCKED, so a message's rules run once
 * however many callers try (the request that recorded it, the recovery sweep), and a run that
 * fails leaves the mark for the sweep. Answers what automation did, or null when there was nothing
 * to do or another caller holds or has cleared the mark.
 */
export async function runPendingAutomation(
  db: Database,
  pending: PendingAutomation,
): Promise<AutomationEntry[] | null> {
  return withTransaction(db, async (tx) => {
    const [claim] = await queryRows<{ event_id: string | null }>(
      tx,
      sql`select event_id from pending_automation
          where account_id = ${pending.accountId}::uuid and message_id = ${pending.messageId}::uuid
          for update skip locked`,
    );
    if (!claim) return null;
    const [message] = await tx
      .select()
      .from(messages)
      .where(and(eq(messages.accountId, pending.accountId), eq(messages.id, pending.messageId)));
    const entries = message ? await runInboundAutomation(tx, message, claim.event_id ?? undefined) : null;
    await tx
      .delete(pendingAutomation)
      .where(
        and(eq(pendingAutomation.accountId, pending.accountId), eq(pendingAutomation.messageId, pending.messageId)),
      );
    return entries;
  });
}

/**
 * The recovery sweep: runs, oldest first, the automation of inbound messages whose mark is older
 * than RECOVER_AFTER_SECONDS (the process that recorded them stopped before running it). Answers
 * how many it ran.
 */
export async function recoverPendingAutomation(db: Database, limit = RECOVERY_BATCH): Promise<number> {
  const due = await withQueryOrigin('task:pending automation claim', () =>
    queryRows<{ account_id: string; message_id: string }>(
      db,
      sql`select account_id, message_id from pending_automation
          where created_at < now() - make_interval(secs => ${RECOVER_AFTER_SECONDS})
          order by created_at limit ${limit}`,
    ),
  );
  let ran = 0;
  for (const row of due) {
    await runPendingAutomation(db, { accountId: row.account_id, messageId: row.message_id });
    ran += 1;
  }
  return ran;
}
