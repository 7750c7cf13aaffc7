import type { Database } from '@/db';
import { recordAudit } from '@/lib/audit/record';
import { DomainError, notFound } from '@/lib/errors';
import { acceptInvitation, presentMembership } from '@/lib/members/invitations';
import { type AccountMembership, memberSessionVersion, membershipsOf } from '@/lib/members/lookup';
import type { MembershipWire } from '@/lib/members/schemas';
import { signInNeedsSecondFactor, signInSecondFactor } from '@/lib/members/two-factor';
import type { AccountPrincipal } from './principal';
import { sessionCookieHeaders } from './session-cookie';
import { currentSessionVersion } from './session-version';

/**
 * A person signed in by email code belongs to one or more accounts (a member row in each); the session
 * names the current one (its claims accountId and memberId), and switching re-issues the session cookie
 * for another membership of the same email. An API key, and a session a key opened, names no person:
 * it has no memberships to switch between.
 */

/** The person behind a session, or null for a key or a session a key opened. */
function signedInPerson(principal: AccountPrincipal): { email: string; memberId: string } | null {
  return principal.via === 'session' && principal.memberId && principal.email
    ? { email: principal.email, memberId: principal.memberId }
    : null;
}

/** GET /api/v1/auth/memberships: the accounts the signed-in email belongs to, the current one marked. */
export async function listMemberships(db: Database, principal: AccountPrincipal): Promise<{ data: MembershipWire[] }> {
  const person = signedInPerson(principal);
  if (!person) return { data: [] };
  const memberships = await membershipsOf(db, person.email);
  return { data: memberships.map((membership) => presentMembership(membership, principal.accountId)) };
}

export type SwitchedSession = { membership: MembershipWire; cookies: string[] };

/** A session cookie for `membership`, at the account's and the member's session versions now. */
async function sessionFor(db: Database, req: Request, membership: AccountMembership): Promise<string[]> {
  const sessionVersion = await currentSessionVersion(db, membership.accountId);
  const memberVersion = await memberSessionVersion(db, membership.memberId);
  if (sessionVersion === null || memberVersion === null) throw notFound('Membership');
  return sessionCookieHeaders(req, {
    accountId: membership.accountId,
    email: membership.email,
    keyId: null,
    memberId: membership.memberId,
    sessionVersion,
    memberVersion,
  });
}

function personOrRefuse(principal: AccountPrincipal, what: string): { email: string; memberId: string } {
  const person = signedInPerson(principal);
  if (!person) {
    throw new DomainError('FORBIDDEN', `${what} takes a dashboard session signed in by email code, not an API key.`);
  }
  return person;
}

/**
 * POST /api/v1/auth/memberships/switch: the session moves to another account of the signed-in email
 * (404 for an account the email is not a member of). Audited in the account switched to. A membership
 * with two-factor sign-in on is entered as sign-in enters it: with `totp`, a code of its authenticator
 * or a recovery code (403 FORBIDDEN with `second_factor_required` without one or with a wrong one;
 * the attempts count against the member's limit, 429 past it).
 */
export async function switchAccount(
  db: Database,
  principal: AccountPrincipal,
  accountId: string,
  req: Request,
  totp?: string,
): Promise<SwitchedSession> {
  const person = personOrRefuse(principal, 'Switching accounts');
  const membership = (await membershipsOf(db, person.email)).find((m) => m.accountId === accountId);
  if (!membership) throw notFound('Membership');
  if (accountId !== principal.accountId && (await signInNeedsSecondFactor(db, membership.memberId))) {
    const refused = (detail: string) =>
      new DomainError('FORBIDDEN', detail, { extra: { second_factor_required: true } });
    if (!totp) {
      throw refused(
        'Your membership of that account signs in with a second factor: send a code of its authenticator as totp.',
      );
    }
    if (!(await signInSecondFactor(db, membership.memberId, totp))) {
      await recordAudit(db, {
        accountId,
        action: 'two_factor.check_failed',
        target: membership.memberId,
        details: { during: 'switch_account' },
      });
      throw refused('That authenticator code is not right (or was used already).');
    }
  }
  const cookies = await sessionFor(db, req, membership);
  if (accountId !== principal.accountId) {
    await recordAudit(db, {
      accountId,
      action: 'session.switched_account',
      target: membership.memberId,
      details: { from_account_id: principal.accountId },
    });
  }
  return { membership: presentMembership(membership, accountId), cookies };
}

/**
 * POST /api/v1/members/invitations/accept: the signed-in email joins the account a link invites it to, and
 * the session moves to that account. The email must be the invited one (lib/members/invitations.ts).
 */
export async function acceptInvitationAndSwitch(
  db: Database,
  principal: AccountPrincipal,
  token: string,
  req: Request,
): Promise<SwitchedSession> {
  const person = personOrRefuse(principal, 'Accepting an invitation');
  const joined = await db.transaction((tx) => acceptInvitation(tx, token, person.email));
  const membership = (await membershipsOf(db, person.email)).find((m) => m.memberId === joined.memberId);
  if (!membership) throw notFound('Membership');
  return {
    membership: presentMembership(membership, membership.accountId),
    cookies: await sessionFor(db, req, membership),
  };
}
