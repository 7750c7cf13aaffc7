import { eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { accounts } from '@/db/schema';
import { config } from '@/lib/config';

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
  await executor.update(accounts).set({ helpReply: input.help_reply }).where(eq(accounts.id, accountId));
  return getAutomationSettings(executor, accountId);
}
