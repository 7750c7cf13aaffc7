import { sql } from 'drizzle-orm';
import type { Executor } from '@/db';

/**
 * Nulls `messages.callback_webhook_id` where it names one of the account's webhooks `ids`: what each
 * path deleting webhooks runs first, in its transaction. The column has no foreign key (Citus refuses
 * `ON DELETE SET NULL (callback_webhook_id)` on a key that includes `account_id`, the distribution
 * column), so this is the one place that keeps it from naming a deleted webhook.
 */
export async function detachMessagesFromWebhooks(
  executor: Executor,
  accountId: string,
  ids: readonly string[],
): Promise<void> {
  if (ids.length === 0) return;
  await executor.execute(
    sql`update messages set callback_webhook_id = null
      where account_id = ${accountId} and callback_webhook_id = any(${`{${ids.join(',')}}`}::uuid[])`,
  );
}
