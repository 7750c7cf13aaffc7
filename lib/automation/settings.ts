import { eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { accounts } from '@/db/schema';
import { recordAudit } from '@/lib/audit/record';
import { config } from '@/lib/config';
import { withTransaction } from '@/lib/transactions';

/** The built-in HELP responder's text, and the automatic-message limits in force. */
export async function getAutomationSettings(executor: Executor, accountId: string) {
  const [account] = await executor
    .select({ helpReply: accounts.helpReply })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  return {
    help_reply: account?.helpReply ?? null,
    auto_reply_limit: config.autoReplyLimit,
    auto_sms_account_hourly_limit: config.autoSmsAccountHourlyLimit,
  };
}

export async function updateAutomationSettings(
  executor: Executor,
  accountId: string,
  input: { help_reply: string | null },
) {
  return withTransaction(executor, async (tx) => {
    await tx.update(accounts).set({ helpReply: input.help_reply }).where(eq(accounts.id, accountId));
    await recordAudit(tx, { accountId, action: 'help_reply.updated', details: { help_reply: input.help_reply } });
    return getAutomationSettings(tx, accountId);
  });
}
