import { eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { accounts } from '@/db/schema';
import type { AccountRow } from './find-or-create';

export async function findAccountById(executor: Executor, accountId: string): Promise<AccountRow | undefined> {
  const [row] = await executor.select().from(accounts).where(eq(accounts.id, accountId));
  return row;
}
