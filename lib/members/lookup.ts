import { asc, eq, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { accounts, type MemberRole, members } from '@/db/schema';

export type Membership = { memberId: string; accountId: string; email: string; role: MemberRole };
/** A membership with the email of its account (the account's name in the header's switcher). */
export type AccountMembership = Membership & { accountEmail: string };

/**
 * The accounts a person (an email, already normalised) belongs to, the one they sign in to first
 * leading: the account the email activated, then the others in the order they were joined.
 */
export async function membershipsOf(executor: Executor, email: string): Promise<AccountMembership[]> {
  return executor
    .select({
      memberId: members.id,
      accountId: members.accountId,
      email: members.email,
      role: members.role,
      accountEmail: accounts.email,
    })
    .from(members)
    .innerJoin(accounts, eq(accounts.id, members.accountId))
    .where(eq(members.email, email))
    .orderBy(sql`${accounts.email} = ${members.email} desc`, asc(members.joinedAt), asc(members.id));
}

/** The session version a member's session opened now carries; null when they are no longer a member. */
export async function memberSessionVersion(executor: Executor, memberId: string): Promise<number | null> {
  const [row] = await executor
    .select({ sessionVersion: members.sessionVersion })
    .from(members)
    .where(eq(members.id, memberId));
  return row ? row.sessionVersion : null;
}
