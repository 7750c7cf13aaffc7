import { and, asc, eq } from 'drizzle-orm';
import type { Executor, Transaction } from '@/db';
import { type MemberRole, members } from '@/db/schema';
import { recordAudit } from '@/lib/audit/record';
import type { AccountPrincipal } from '@/lib/auth/principal';
import { DomainError, notFound } from '@/lib/errors';
import { withTransaction } from '@/lib/transactions';
import { iso } from '@/lib/wire';
import { may } from './roles';
import { refusalDetail } from './route-areas';
import type { MemberWire } from './schemas';

type MemberRow = typeof members.$inferSelect;

function presentMember(row: MemberRow): MemberWire {
  return { id: row.id, email: row.email, role: row.role, joined_at: iso(row.joinedAt) ?? '' };
}

/** What the caller may do as a member would: a key without a role may do everything, as an owner. */
function roleOf(principal: AccountPrincipal): MemberRole {
  return principal.role ?? 'owner';
}

/** The account's members, the earliest joined first, and who the caller is among them. */
export async function listMembers(executor: Executor, principal: AccountPrincipal) {
  const rows = await executor
    .select()
    .from(members)
    .where(eq(members.accountId, principal.accountId))
    .orderBy(asc(members.joinedAt), asc(members.id));
  return {
    data: rows.map(presentMember),
    you: { member_id: principal.memberId ?? null, role: principal.role ?? null },
  };
}

/**
 * The account's members, locked until the transaction ends (in id order, so two changes never wait
 * on each other crosswise): a change that could leave the account without an owner counts the owners
 * with every other such change held back, and sees what the one before it committed.
 */
async function lockedMembers(tx: Transaction, accountId: string): Promise<MemberRow[]> {
  return tx.select().from(members).where(eq(members.accountId, accountId)).orderBy(asc(members.id)).for('update');
}

function lastOwner(): DomainError {
  return new DomainError('CONFLICT', 'An account always keeps at least one owner: make another member an owner first.');
}

function ownersIn(rows: MemberRow[]): number {
  return rows.filter((row) => row.role === 'owner').length;
}

/**
 * Gives a member another role. Only an owner grants or takes away `owner`; the last owner keeps it
 * (409 CONFLICT). The route lets only roles that may change members (owner, admin) through.
 */
export async function changeMemberRole(
  executor: Executor,
  principal: AccountPrincipal,
  memberId: string,
  role: MemberRole,
): Promise<MemberWire> {
  return withTransaction(executor, async (tx) => {
    const all = await lockedMembers(tx, principal.accountId);
    const target = all.find((row) => row.id === memberId);
    if (!target) throw notFound('Member');
    if ((role === 'owner' || target.role === 'owner') && roleOf(principal) !== 'owner') {
      throw new DomainError('FORBIDDEN', 'Only an owner makes a member an owner or takes the owner role away.');
    }
    if (target.role === role) return presentMember(target);
    if (target.role === 'owner' && ownersIn(all) <= 1) throw lastOwner();
    const [updated] = await tx
      .update(members)
      .set({ role })
      .where(and(eq(members.id, memberId), eq(members.accountId, principal.accountId)))
      .returning();
    if (!updated) throw notFound('Member');
    await recordAudit(tx, {
      accountId: principal.accountId,
      action: 'member.role_changed',
      target: memberId,
      details: { email: target.email, from: target.role, to: role },
    });
    return presentMember(updated);
  });
}

/**
 * Removes a member from the account: their sessions end at once (lib/auth/session.ts finds the member
 * on every request). A member may remove themselves (leave); removing anyone else takes a role that
 * may change members, and removing an owner an owner. The last owner stays (409 CONFLICT).
 */
export async function removeMember(executor: Executor, principal: AccountPrincipal, memberId: string): Promise<void> {
  await withTransaction(executor, async (tx) => {
    const all = await lockedMembers(tx, principal.accountId);
    const target = all.find((row) => row.id === memberId);
    if (!target) throw notFound('Member');
    const leaving = principal.memberId === memberId;
    const role = roleOf(principal);
    if (!leaving && !may(role, 'members', 'write')) {
      throw new DomainError('FORBIDDEN', refusalDetail(role, 'members', 'write', principal.via));
    }
    if (!leaving && target.role === 'owner' && role !== 'owner') {
      throw new DomainError('FORBIDDEN', 'Only an owner removes an owner.');
    }
    if (target.role === 'owner' && ownersIn(all) <= 1) throw lastOwner();
    await tx.delete(members).where(and(eq(members.id, memberId), eq(members.accountId, principal.accountId)));
    await recordAudit(tx, {
      accountId: principal.accountId,
      action: leaving ? 'member.left' : 'member.removed',
      target: memberId,
      details: { email: target.email, role: target.role },
    });
  });
}
