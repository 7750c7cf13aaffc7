import { eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { accounts } from '@/db/schema';
import { hasLookalikes, smartEncode } from './smart-encoding';

/**
 * Whether a send replaces GSM-7 look-alikes: its own `smart_encoding` when given, else the
 * account's default (Settings → Sending), read only when the text holds a character to replace.
 */
export async function smartEncodingOn(
  executor: Executor,
  accountId: string,
  texts: string[],
  asked: boolean | undefined,
): Promise<boolean> {
  if (asked !== undefined) return asked;
  if (!texts.some(hasLookalikes)) return false;
  const [account] = await executor
    .select({ on: accounts.smartEncoding })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  return account?.on === true;
}

/** The text a send keeps: smart-encoded when it asks for it (or the account does by default). */
export async function smartContent(
  executor: Executor,
  accountId: string,
  content: string,
  asked: boolean | undefined,
): Promise<string> {
  return (await smartEncodingOn(executor, accountId, [content], asked)) ? smartEncode(content) : content;
}
