import { and, eq } from 'drizzle-orm';
import { encode } from 'next-auth/jwt';
import type { Database } from '@/db';
import { type MemberRole, members } from '@/db/schema';
import { appSecret } from '@/lib/config';

// Sessions are encrypted with the app secret: a fixed one, so no secret file is written.
process.env.APP_SECRET ??= 'test-app-secret-0123456789abcdefghijklmnopqrstuvwxyz';

/** The origin the session's state-changing requests come from (the CSRF check). */
export const APP_ORIGIN = 'http://localhost:3000';

export type TestMember = { memberId: string; email: string; role: MemberRole; cookie: string };

/** A dashboard session cookie of a member, as next-auth sets it after an email-code sign-in. */
export async function memberCookie(accountId: string, memberId: string, memberVersion = 0): Promise<string> {
  const token = await encode({
    token: { accountId, keyId: null, sessionVersion: 0, memberId, memberVersion },
    secret: appSecret(),
    maxAge: 3600,
  });
  return `next-auth.session-token=${token}`;
}

/** A member of the account with `role`, written directly (invitations are tested elsewhere), signed in. */
export async function addTestMember(
  db: Database,
  accountId: string,
  role: MemberRole,
  email = `${role}-${crypto.randomUUID()}@example.test`,
): Promise<TestMember> {
  const [row] = await db.insert(members).values({ accountId, email, role }).returning({ id: members.id });
  if (!row) throw new Error('addTestMember: insert returned no row');
  return { memberId: row.id, email, role, cookie: await memberCookie(accountId, row.id) };
}

/** The account's first owner (the member the activating email became). */
export async function ownerOf(db: Database, accountId: string, email: string): Promise<TestMember> {
  const [row] = await db
    .select({ id: members.id })
    .from(members)
    .where(and(eq(members.accountId, accountId), eq(members.email, email)));
  if (!row) throw new Error('ownerOf: the account has no owner row');
  return { memberId: row.id, email, role: 'owner', cookie: await memberCookie(accountId, row.id) };
}

/** Headers of a request made by the dashboard with a member's session. */
export function asMember(member: TestMember): Record<string, string> {
  return { cookie: member.cookie, origin: APP_ORIGIN };
}
