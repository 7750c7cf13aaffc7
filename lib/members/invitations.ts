import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import { type Database, type Executor, getDb, type Transaction } from '@/db';
import { accounts, type MemberRole, memberInvitations, members } from '@/db/schema';
import { type AuditActor, currentActor } from '@/lib/audit/actor';
import { recordAudit } from '@/lib/audit/record';
import { invitationEmail } from '@/lib/email/messages';
import { sendAfterCommit } from '@/lib/email/send';
import { DomainError, notFound } from '@/lib/errors';
import { keysetPage, type Page, type PageQuery, toPage } from '@/lib/pagination';
import { consumeRateLimits } from '@/lib/rate-limit/consume';
import { withTransaction } from '@/lib/transactions';
import { iso } from '@/lib/wire';
import type { AccountMembership, Membership } from './lookup';
import { ranksAtLeast } from './roles';
import {
  INVITATION_LIFETIME_DAYS,
  INVITATIONS_PER_HOUR,
  type InvitationWire,
  invitationToken,
  type MembershipWire,
} from './schemas';

/** Where the emailed link leads: the page that shows the invitation and signs the invitee in (app/invite). */
export const INVITATION_PATH = '/invite';

/** Who asks: the account, the member (absent for an API key) and the role bounding them (absent: unbounded). */
export type Inviter = { accountId: string; memberId?: string; role?: MemberRole };

type InvitationRow = typeof memberInvitations.$inferSelect;

const live = and(isNull(memberInvitations.acceptedAt), isNull(memberInvitations.revokedAt));

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

function statusOf(row: InvitationRow, now = new Date()): InvitationWire['status'] {
  if (row.acceptedAt) return 'accepted';
  if (row.revokedAt) return 'revoked';
  return row.expiresAt <= now ? 'expired' : 'pending';
}

function present(row: InvitationRow): InvitationWire {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    status: statusOf(row),
    expires_at: iso(row.expiresAt) ?? '',
    created_at: iso(row.createdAt) ?? '',
  };
}

/**
 * Inviting and revoking take an owner or admin (an API key without a role may too), and nobody grants a
 * role above their own: an admin cannot invite an owner.
 */
function assertMayInvite(inviter: Inviter, role?: MemberRole): void {
  const caller = inviter.role;
  if (!caller) return;
  if (!ranksAtLeast(caller, 'admin')) {
    throw new DomainError('FORBIDDEN', `Inviting members takes the owner or admin role; this ${caller} may not.`);
  }
  if (role && !ranksAtLeast(caller, role)) {
    throw new DomainError('FORBIDDEN', `Only an owner may invite an ${role}.`);
  }
}

async function accountEmailOf(executor: Executor, accountId: string): Promise<string> {
  const [account] = await executor.select({ email: accounts.email }).from(accounts).where(eq(accounts.id, accountId));
  if (!account) throw notFound('Account');
  return account.email;
}

/**
 * Invites an email to the account with a role and emails it the link (after the commit). An email with a
 * live invitation (pending or expired) has it refreshed: the new role, a new link (the old one stops
 * working) and another 7 days; its id stays. A member already: 409 ALREADY_A_MEMBER.
 */
export async function createInvitation(
  db: Database,
  inviter: Inviter,
  body: { email: string; role: MemberRole },
  context: { origin: string },
): Promise<InvitationWire> {
  assertMayInvite(inviter, body.role);
  const { accountId } = inviter;
  const token = randomBytes(32).toString('base64url');
  const { row, accountEmail } = await db.transaction(async (tx) => {
    const [member] = await tx
      .select({ id: members.id })
      .from(members)
      .where(and(eq(members.accountId, accountId), eq(members.email, body.email)));
    if (member) throw new DomainError('ALREADY_A_MEMBER', `${body.email} is already a member of this account.`);
    await consumeRateLimits(tx, [
      {
        bucket: `invitations:${accountId}`,
        limit: INVITATIONS_PER_HOUR,
        windowSeconds: 3600,
        what: 'invitations from this account',
      },
    ]);
    const fresh = {
      role: body.role,
      tokenHash: hashToken(token),
      invitedByMemberId: inviter.memberId ?? null,
      expiresAt: sql`now() + make_interval(days => ${INVITATION_LIFETIME_DAYS})`,
    };
    const [written] = await tx
      .insert(memberInvitations)
      .values({ accountId, email: body.email, ...fresh })
      .onConflictDoUpdate({
        target: [memberInvitations.accountId, memberInvitations.email],
        targetWhere: sql`${memberInvitations.acceptedAt} is null and ${memberInvitations.revokedAt} is null`,
        // The new row's expiry, not now() again: Citus refuses a non-immutable function in DO UPDATE SET.
        set: { ...fresh, expiresAt: sql`excluded.expires_at` },
      })
      .returning();
    if (!written) throw new Error('createInvitation: no row written');
    await recordAudit(tx, {
      accountId,
      action: 'invitation.created',
      target: written.id,
      details: { email: body.email, role: body.role },
    });
    return { row: written, accountEmail: await accountEmailOf(tx, accountId) };
  });
  const link = `${context.origin}${INVITATION_PATH}/${token}`;
  sendAfterCommit(db, invitationEmail(body.email, link, accountEmail, body.role, INVITATION_LIFETIME_DAYS));
  return present(row);
}

/** The account's invitations not accepted nor revoked (expired ones included, to be sent again), newest first. */
export async function listInvitations(
  executor: Executor,
  accountId: string,
  query: PageQuery,
): Promise<Page<InvitationWire>> {
  const keyset = keysetPage(query, {
    createdAt: memberInvitations.createdAt,
    id: memberInvitations.id,
    idType: 'uuid',
  });
  const rows = await executor
    .select()
    .from(memberInvitations)
    .where(and(eq(memberInvitations.accountId, accountId), live, keyset.after))
    .orderBy(...keyset.orderBy)
    .limit(keyset.limit);
  return toPage(rows, query.limit, present);
}

/** The account's invitation, or 404 (another account's too). */
export async function getInvitation(executor: Executor, accountId: string, id: string): Promise<InvitationWire> {
  const [row] = await executor
    .select()
    .from(memberInvitations)
    .where(and(eq(memberInvitations.accountId, accountId), eq(memberInvitations.id, id)));
  if (!row) throw notFound('Invitation');
  return present(row);
}

/** Revokes a pending or expired invitation: its link stops working. One accepted or revoked already is 404. */
export async function revokeInvitation(executor: Executor, inviter: Inviter, id: string): Promise<void> {
  assertMayInvite(inviter);
  await withTransaction(executor, async (tx) => {
    const [revoked] = await tx
      .update(memberInvitations)
      .set({ revokedAt: sql`now()` })
      .where(and(eq(memberInvitations.accountId, inviter.accountId), eq(memberInvitations.id, id), live))
      .returning();
    if (!revoked) throw notFound('Invitation');
    await recordAudit(tx, {
      accountId: inviter.accountId,
      action: 'invitation.revoked',
      target: id,
      details: { email: revoked.email, role: revoked.role },
    });
  });
}

/** What the invitation page shows for a link: null when the token names no invitation. */
export type InvitationView = {
  accountEmail: string;
  email: string;
  role: MemberRole;
  status: InvitationWire['status'];
  expiresAt: string;
};

export async function invitationForToken(executor: Executor, token: string): Promise<InvitationView | null> {
  if (!invitationToken.safeParse(token).success) return null;
  const [found] = await executor
    .select({ invitation: memberInvitations, accountEmail: accounts.email })
    .from(memberInvitations)
    .innerJoin(accounts, eq(accounts.id, memberInvitations.accountId))
    .where(eq(memberInvitations.tokenHash, hashToken(token)));
  if (!found) return null;
  const { invitation } = found;
  return {
    accountEmail: found.accountEmail,
    email: invitation.email,
    role: invitation.role,
    status: statusOf(invitation),
    expiresAt: iso(invitation.expiresAt) ?? '',
  };
}

/** The invitation a link names, for the invitation page (app/invite). */
export async function invitationOfLink(token: string): Promise<InvitationView | null> {
  return invitationForToken(await getDb(), token);
}

/** Whether an email has a pending invitation to some account: a sign-in code is then worth mailing. */
export async function hasPendingInvitation(executor: Executor, email: string): Promise<boolean> {
  const [row] = await executor
    .select({ id: memberInvitations.id })
    .from(memberInvitations)
    .where(and(eq(memberInvitations.email, email), live, gt(memberInvitations.expiresAt, sql`now()`)))
    .limit(1);
  return row !== undefined;
}

function refused(detail: string): DomainError {
  return new DomainError('CODE_EXPIRED', detail);
}

/**
 * Makes `email` a member of the account a link's token invites to, in the caller's transaction (the
 * sign-in's, which consumes the email code in the same one). The email must be the invited one; an
 * expired, revoked or (by someone since removed) used invitation is refused (410 CODE_EXPIRED), an unknown
 * token 404. Accepting twice answers the same membership: the unique (account, email) index of members holds.
 */
export async function acceptInvitation(
  tx: Transaction,
  token: string,
  email: string,
  actor: AuditActor = currentActor(),
): Promise<Membership> {
  const [invitation] = invitationToken.safeParse(token).success
    ? await tx
        .select({ row: memberInvitations, expired: sql<boolean>`${memberInvitations.expiresAt} <= now()` })
        .from(memberInvitations)
        .where(eq(memberInvitations.tokenHash, hashToken(token)))
        .for('update')
    : [];
  if (!invitation) throw notFound('Invitation');
  const { row } = invitation;
  if (row.email !== email) throw new DomainError('FORBIDDEN', 'This invitation is for another email address.');
  const [existing] = await tx
    .select()
    .from(members)
    .where(and(eq(members.accountId, row.accountId), eq(members.email, email)));
  if (row.acceptedAt) {
    if (existing) return { memberId: existing.id, accountId: existing.accountId, email, role: existing.role };
    throw refused('This invitation was used already: ask for a new one.');
  }
  if (row.revokedAt) throw refused('This invitation was revoked: ask for a new one.');
  if (invitation.expired) throw refused('This invitation has expired: ask for a new one.');
  const [joined] = existing
    ? [existing]
    : await tx.insert(members).values({ accountId: row.accountId, email, role: row.role }).returning();
  if (!joined) throw new Error('acceptInvitation: no member written');
  await tx
    .update(memberInvitations)
    .set({ acceptedAt: sql`now()` })
    .where(and(eq(memberInvitations.accountId, row.accountId), eq(memberInvitations.id, row.id)));
  await recordAudit(tx, {
    accountId: row.accountId,
    action: 'invitation.accepted',
    target: row.id,
    details: { email, role: joined.role, member_id: joined.id },
    actor: { ...actor, kind: 'session', label: email },
  });
  return { memberId: joined.id, accountId: joined.accountId, email, role: joined.role };
}

/** A membership on the wire, `current` when it is the one the session is signed in to. */
export function presentMembership(membership: AccountMembership, currentAccountId: string): MembershipWire {
  return {
    account_id: membership.accountId,
    member_id: membership.memberId,
    role: membership.role,
    account_email: membership.accountEmail,
    current: membership.accountId === currentAccountId,
  };
}
