import { and, eq, sql } from 'drizzle-orm';
import { encode } from 'next-auth/jwt';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GET as listAuditLog } from '@/app/api/v1/audit-log/route';
import { GET as listMemberships } from '@/app/api/v1/auth/memberships/route';
import { POST as switchAccount } from '@/app/api/v1/auth/memberships/switch/route';
import { POST as requestCode } from '@/app/api/v1/auth/sign-in/request-code/route';
import { GET as getInvitation, DELETE as revokeInvitation } from '@/app/api/v1/members/invitations/[id]/route';
import { POST as acceptInvitation } from '@/app/api/v1/members/invitations/accept/route';
import { POST as invite, GET as listInvitations } from '@/app/api/v1/members/invitations/route';
import { GET as listPhones } from '@/app/api/v1/phones/route';
import { memberInvitations, members, rateLimitHits } from '@/db/schema';
import { issueCode } from '@/lib/auth/codes';
import { authOptions } from '@/lib/auth/next-auth';
import { sessionPrincipal } from '@/lib/auth/session';
import { authorizeEmailCode, INVITATION_REFUSED_ERROR, type SignedInUser } from '@/lib/auth/sign-in';
import { appSecret } from '@/lib/config';
import { listDevInbox } from '@/lib/dev-inbox/store';
import { invitationForToken } from '@/lib/members/invitations';
import { INVITATIONS_PER_HOUR } from '@/lib/members/schemas';
import { createTestAccount, type TestAccount } from '../fixtures';
import { type CallResult, call } from '../http';
import { emailedCode as sharedEmailedCode, nextMail as sharedNextMail } from '../mail';
import { withTestDatabase } from '../setup-db';

// Sessions are encrypted with the app secret: a fixed one, so no secret file is written.
process.env.APP_SECRET ??= 'test-app-secret-0123456789abcdefghijklmnopqrstuvwxyz';
const { db } = withTestDatabase();

afterEach(() => {
  vi.unstubAllEnvs();
});

const APP_ORIGIN = 'http://localhost:3000';

function newEmail(name: string): string {
  return `${name}-${crypto.randomUUID()}@example.test`;
}

const nextMail = (email: string, request: () => Promise<unknown>) => sharedNextMail(db(), email, request);
const emailedCode = (email: string) => sharedEmailedCode(db(), email);

/** A sign-in code issued as the request issues it, for an email the request would not mail (nothing invites it). */
async function issuedCode(email: string): Promise<string> {
  const { code } = await db().transaction((tx) => issueCode(tx, { purpose: 'sign_in', email }));
  return code;
}

/** What next-auth does after authorize: the jwt callback fills the token, which becomes the cookie. */
async function cookieFor(user: SignedInUser | null): Promise<string> {
  if (!user) throw new Error('sign-in refused');
  const jwt = authOptions().callbacks!.jwt!;
  const token = await jwt({ token: { sub: user.id, email: user.email }, user: user as never, account: null });
  return `next-auth.session-token=${await encode({ token, secret: appSecret(), maxAge: 3600 })}`;
}

/** Signs in by email code (with an invitation's token, when given) as the sign-in page does. */
async function signIn(email: string, invitation?: string): Promise<string> {
  const code = await emailedCode(email);
  return cookieFor(await authorizeEmailCode(db(), { email, code, invitation }));
}

/** The cookie a Set-Cookie answer leaves in the browser, as a Cookie header. */
function cookieSet(res: { headers: Headers }): string {
  const [first] = res.headers.getSetCookie();
  if (!first) throw new Error('no Set-Cookie');
  return first.split(';')[0]!;
}

function principalOf(cookie: string) {
  return sessionPrincipal(new Request(APP_ORIGIN, { headers: { cookie } }));
}

/** Invites by session, as Settings → Members does: the invitation and the link's token emailed to the invitee. */
async function inviteBy(cookie: string, email: string, role = 'operator') {
  let answer: CallResult | undefined;
  const mail = await nextMail(email, async () => {
    answer = await call(invite, { body: { email, role }, headers: { cookie, origin: APP_ORIGIN } });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  });
  const link = /http:\/\/localhost:3000\/invite\/([A-Za-z0-9_-]{43})/.exec(mail.text);
  if (!link) throw new Error(`no invitation link in: ${mail.text}`);
  return { invitation: answer!.body, token: link[1]!, mail };
}

async function ownerSession(account: TestAccount): Promise<string> {
  return signIn(account.email);
}

describe('inviting a member', () => {
  it('a person with no account opens the link, signs in with a code and joins as operator', async () => {
    const owner = await createTestAccount(db());
    const ownerCookie = await ownerSession(owner);
    const email = newEmail('teammate');
    const { invitation, token, mail } = await inviteBy(ownerCookie, email);

    expect(invitation).toEqual({
      id: expect.any(String),
      email,
      role: 'operator',
      status: 'pending',
      expires_at: expect.stringMatching(/Z$/),
      created_at: expect.stringMatching(/Z$/),
    });
    const days = (Date.parse(invitation.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.99);
    expect(days).toBeLessThanOrEqual(7);
    expect(mail.subject).toContain(owner.email);
    expect(await invitationForToken(db(), token)).toEqual({
      accountEmail: owner.email,
      email,
      role: 'operator',
      status: 'pending',
      expiresAt: invitation.expires_at,
    });

    const cookie = await signIn(email, token);
    expect(await principalOf(cookie)).toMatchObject({
      accountId: owner.accountId,
      via: 'session',
      email,
      role: 'operator',
      memberId: expect.any(String),
    });
    expect((await call(listPhones, { headers: { cookie } })).status).toBe(200);

    const memberships = await call(listMemberships, { headers: { cookie } });
    expect(memberships.body.data).toEqual([
      {
        account_id: owner.accountId,
        member_id: expect.any(String),
        role: 'operator',
        account_email: owner.email,
        current: true,
      },
    ]);
    const joined = await db()
      .select({ email: members.email, role: members.role })
      .from(members)
      .where(eq(members.accountId, owner.accountId));
    expect(joined).toEqual(expect.arrayContaining([{ email, role: 'operator' }]));

    const read = await call(getInvitation, { params: { id: invitation.id }, apiKey: owner.apiKey });
    expect(read.body.status).toBe('accepted');
    const open = await call(listInvitations, { apiKey: owner.apiKey });
    expect(open.body.data.map((i: { id: string }) => i.id)).not.toContain(invitation.id);

    const audit = await call(listAuditLog, { apiKey: owner.apiKey });
    const actions = audit.body.data.map((entry: { action: string }) => entry.action);
    expect(actions).toEqual(expect.arrayContaining(['invitation.created', 'invitation.accepted']));
  });

  it('lists open invitations newest first, and an API key without a role may invite', async () => {
    const owner = await createTestAccount(db());
    const first = await call(invite, { body: { email: newEmail('a'), role: 'viewer' }, apiKey: owner.apiKey });
    const second = await call(invite, { body: { email: newEmail('b'), role: 'developer' }, apiKey: owner.apiKey });
    expect([first.status, second.status]).toEqual([201, 201]);
    const page = await call(listInvitations, { path: '/?limit=1', apiKey: owner.apiKey });
    expect(page.body.data.map((i: { id: string }) => i.id)).toEqual([second.body.id]);
    const rest = await call(listInvitations, {
      path: `/?limit=1&cursor=${page.body.next_cursor}`,
      apiKey: owner.apiKey,
    });
    expect(rest.body.data.map((i: { id: string }) => i.id)).toEqual([first.body.id]);
  });

  it('answers 409 ALREADY_A_MEMBER for a member’s email, and 400 for a bad email, role or field', async () => {
    const owner = await createTestAccount(db());
    const res = await call(invite, { body: { email: owner.email.toUpperCase(), role: 'admin' }, apiKey: owner.apiKey });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('ALREADY_A_MEMBER');
    for (const body of [
      { email: 'nope', role: 'viewer' },
      { email: newEmail('x'), role: 'boss' },
      { email: newEmail('x'), role: 'viewer', note: 'hi' },
    ]) {
      expect((await call(invite, { body, apiKey: owner.apiKey })).status).toBe(400);
    }
  });

  it('an admin invites up to admin but not an owner; an operator invites nobody', async () => {
    const owner = await createTestAccount(db());
    const ownerCookie = await ownerSession(owner);
    const adminEmail = newEmail('admin');
    const operatorEmail = newEmail('operator');
    const adminCookie = await signIn(adminEmail, (await inviteBy(ownerCookie, adminEmail, 'admin')).token);
    const operatorCookie = await signIn(operatorEmail, (await inviteBy(ownerCookie, operatorEmail, 'operator')).token);

    const asAdmin = (role: string) =>
      call(invite, { body: { email: newEmail('new'), role }, headers: { cookie: adminCookie, origin: APP_ORIGIN } });
    const ownerByAdmin = await asAdmin('owner');
    expect(ownerByAdmin.status).toBe(403);
    expect(ownerByAdmin.body.code).toBe('FORBIDDEN');
    expect((await asAdmin('admin')).status).toBe(201);

    const byOperator = await call(invite, {
      body: { email: newEmail('new'), role: 'viewer' },
      headers: { cookie: operatorCookie, origin: APP_ORIGIN },
    });
    expect(byOperator.status).toBe(403);
    const pending = await call(invite, { body: { email: newEmail('p'), role: 'viewer' }, apiKey: owner.apiKey });
    const revokeByOperator = await call(revokeInvitation, {
      method: 'DELETE',
      params: { id: pending.body.id },
      headers: { cookie: operatorCookie, origin: APP_ORIGIN },
    });
    expect(revokeByOperator.status).toBe(403);
    expect((await call(getInvitation, { params: { id: pending.body.id }, apiKey: owner.apiKey })).body.status).toBe(
      'pending',
    );
  });

  it('limits invitations per account: past the hour’s allowance, 429 with Retry-After and nothing sent', async () => {
    const [owner, bystander] = [await createTestAccount(db()), await createTestAccount(db())];
    await db()
      .insert(rateLimitHits)
      .values(Array.from({ length: INVITATIONS_PER_HOUR }, () => ({ bucket: `invitations:${owner.accountId}` })));
    const email = newEmail('one-too-many');
    const limited = await call(invite, { body: { email, role: 'viewer' }, apiKey: owner.apiKey });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await call(listInvitations, { apiKey: owner.apiKey })).body.data).toEqual([]);
    // Another account's allowance is its own.
    expect((await call(invite, { body: { email, role: 'viewer' }, apiKey: bystander.apiKey })).status).toBe(201);
  });

  it('another account’s invitation is 404 to read and to revoke', async () => {
    const [owner, stranger] = [await createTestAccount(db()), await createTestAccount(db())];
    const created = await call(invite, { body: { email: newEmail('x'), role: 'viewer' }, apiKey: owner.apiKey });
    for (const res of [
      await call(getInvitation, { params: { id: created.body.id }, apiKey: stranger.apiKey }),
      await call(revokeInvitation, { method: 'DELETE', params: { id: created.body.id }, apiKey: stranger.apiKey }),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    }
    expect((await call(listInvitations, { apiKey: stranger.apiKey })).body.data).toEqual([]);
    expect((await call(getInvitation, { params: { id: created.body.id }, apiKey: owner.apiKey })).body.status).toBe(
      'pending',
    );
  });
});

describe('a link that no longer works', () => {
  it('an expired invitation is refused at sign-in, and inviting again sends a fresh link with the same id', async () => {
    const owner = await createTestAccount(db());
    const ownerCookie = await ownerSession(owner);
    const email = newEmail('late');
    const { invitation, token } = await inviteBy(ownerCookie, email);
    const code = await emailedCode(email);
    await db()
      .update(memberInvitations)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(and(eq(memberInvitations.accountId, owner.accountId), eq(memberInvitations.id, invitation.id)));

    expect((await invitationForToken(db(), token))?.status).toBe('expired');
    await expect(authorizeEmailCode(db(), { email, code, invitation: token })).rejects.toThrow(
      INVITATION_REFUSED_ERROR,
    );
    const listed = await call(listInvitations, { apiKey: owner.apiKey });
    expect(listed.body.data).toEqual([expect.objectContaining({ id: invitation.id, status: 'expired' })]);

    const again = await inviteBy(ownerCookie, email, 'viewer');
    expect(again.invitation).toMatchObject({ id: invitation.id, role: 'viewer', status: 'pending' });
    expect(again.token).not.toBe(token);
    expect(await invitationForToken(db(), token)).toBeNull();
    // The refused sign-in left the code unused: with the fresh link it opens the account.
    const user = await authorizeEmailCode(db(), { email, code, invitation: again.token });
    expect(await principalOf(await cookieFor(user))).toMatchObject({ accountId: owner.accountId, role: 'viewer' });
  });

  it('a revoked invitation is refused, and revoking it again is 404', async () => {
    const owner = await createTestAccount(db());
    const ownerCookie = await ownerSession(owner);
    const email = newEmail('revoked');
    const { invitation, token } = await inviteBy(ownerCookie, email);
    const code = await emailedCode(email);

    const revoked = await call(revokeInvitation, {
      method: 'DELETE',
      params: { id: invitation.id },
      headers: { cookie: ownerCookie, origin: APP_ORIGIN },
    });
    expect(revoked.status).toBe(204);
    expect((await invitationForToken(db(), token))?.status).toBe('revoked');
    await expect(authorizeEmailCode(db(), { email, code, invitation: token })).rejects.toThrow(
      INVITATION_REFUSED_ERROR,
    );
    expect(await db().select().from(members).where(eq(members.email, email))).toEqual([]);
    const twice = await call(revokeInvitation, {
      method: 'DELETE',
      params: { id: invitation.id },
      apiKey: owner.apiKey,
    });
    expect(twice.status).toBe(404);
    expect((await call(listInvitations, { apiKey: owner.apiKey })).body.data).toEqual([]);
  });

  it('a link is refused to another email, and a used one opens nothing for a member since removed', async () => {
    const owner = await createTestAccount(db());
    const ownerCookie = await ownerSession(owner);
    const email = newEmail('invited');
    const { token } = await inviteBy(ownerCookie, email);

    const intruder = await createTestAccount(db());
    const intruderCode = await emailedCode(intruder.email);
    await expect(
      authorizeEmailCode(db(), { email: intruder.email, code: intruderCode, invitation: token }),
    ).rejects.toThrow(INVITATION_REFUSED_ERROR);
    const intruderCookie = await cookieFor(
      await authorizeEmailCode(db(), { email: intruder.email, code: intruderCode }),
    );
    const byIntruder = await call(acceptInvitation, {
      body: { token },
      headers: { cookie: intruderCookie, origin: APP_ORIGIN },
    });
    expect(byIntruder.status).toBe(403);

    await signIn(email, token);
    // Used: signing in with it again reaches the same membership.
    expect(await principalOf(await signIn(email, token))).toMatchObject({ accountId: owner.accountId });
    await db()
      .delete(members)
      .where(and(eq(members.accountId, owner.accountId), eq(members.email, email)));
    const code = await issuedCode(email);
    await expect(authorizeEmailCode(db(), { email, code, invitation: token })).rejects.toThrow(
      INVITATION_REFUSED_ERROR,
    );
  });

  it('a code requested for an email with neither account nor invitation is not sent', async () => {
    const owner = await createTestAccount(db());
    const email = newEmail('uninvited');
    expect((await call(requestCode, { body: { email } })).status).toBe(202);
    // Emails go out in the order asked for: once a later one arrived, this one would have too.
    await inviteBy(await ownerSession(owner), newEmail('later'));
    expect(await listDevInbox(db(), { to: email, limit: 5 })).toEqual([]);
  });
});

describe('several accounts', () => {
  /** A person who owns one account and joined another as operator, signed in to their own. */
  async function personInTwoAccounts() {
    const mine = await createTestAccount(db());
    const theirs = await createTestAccount(db());
    const { token } = await inviteBy(await ownerSession(theirs), mine.email);
    const cookie = await ownerSession(mine);
    return { mine, theirs, token, cookie };
  }

  it('a signed-in member accepts a link in the API and the session moves to that account', async () => {
    const { mine, theirs, token, cookie } = await personInTwoAccounts();
    const accepted = await call(acceptInvitation, { body: { token }, headers: { cookie, origin: APP_ORIGIN } });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({
      account_id: theirs.accountId,
      member_id: expect.any(String),
      role: 'operator',
      account_email: theirs.email,
      current: true,
    });
    const moved = cookieSet(accepted);
    expect(await principalOf(moved)).toMatchObject({
      accountId: theirs.accountId,
      email: mine.email,
      role: 'operator',
    });
    expect(await principalOf(cookie)).toMatchObject({ accountId: mine.accountId, role: 'owner' });

    const again = await call(acceptInvitation, { body: { token }, headers: { cookie, origin: APP_ORIGIN } });
    expect(again.status).toBe(200);
    expect(again.body.member_id).toBe(accepted.body.member_id);
  });

  it('switching re-issues a working cookie for the other account, and refuses an account the email is not in', async () => {
    const { mine, theirs, token, cookie } = await personInTwoAccounts();
    expect((await call(acceptInvitation, { body: { token }, headers: { cookie, origin: APP_ORIGIN } })).status).toBe(
      200,
    );

    const listed = await call(listMemberships, { headers: { cookie } });
    expect(listed.body.data).toEqual([
      expect.objectContaining({ account_id: mine.accountId, role: 'owner', current: true }),
      expect.objectContaining({ account_id: theirs.accountId, role: 'operator', current: false }),
    ]);

    const switched = await call(switchAccount, {
      body: { account_id: theirs.accountId },
      headers: { cookie, origin: APP_ORIGIN },
    });
    expect(switched.status).toBe(200);
    expect(switched.body).toMatchObject({ account_id: theirs.accountId, role: 'operator', current: true });
    const [setCookie] = switched.headers.getSetCookie();
    expect(setCookie).toMatch(/^next-auth\.session-token=[^;]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=604800/);
    const theirsCookie = cookieSet(switched);
    const phones = await call(listPhones, { headers: { cookie: theirsCookie } });
    expect(phones.status).toBe(200);
    expect(phones.body.data.map((p: { phone: string }) => p.phone)).toEqual([theirs.phone]);
    const after = await call(listMemberships, { headers: { cookie: theirsCookie } });
    expect(after.body.data.find((m: { current: boolean }) => m.current).account_id).toBe(theirs.accountId);

    const back = await call(switchAccount, {
      body: { account_id: mine.accountId },
      headers: { cookie: theirsCookie, origin: APP_ORIGIN },
    });
    expect(await principalOf(cookieSet(back))).toMatchObject({ accountId: mine.accountId, role: 'owner' });

    const stranger = await createTestAccount(db());
    const refused = await call(switchAccount, {
      body: { account_id: stranger.accountId },
      headers: { cookie, origin: APP_ORIGIN },
    });
    expect(refused.status).toBe(404);
    expect(refused.headers.getSetCookie()).toEqual([]);

    const audit = await call(listAuditLog, { apiKey: theirs.apiKey });
    expect(audit.body.data.map((entry: { action: string }) => entry.action)).toContain('session.switched_account');
  });

  it('keeps the secure cookie name of an https session', async () => {
    const { theirs, token, cookie } = await personInTwoAccounts();
    const secure = cookie.replace(/^next-auth\.session-token=/, '__Secure-next-auth.session-token=');
    const accepted = await call(acceptInvitation, {
      body: { token },
      headers: { cookie: secure, origin: APP_ORIGIN },
    });
    expect(accepted.status).toBe(200);
    const [setCookie] = accepted.headers.getSetCookie();
    expect(setCookie).toMatch(/^__Secure-next-auth\.session-token=.*; Secure/);
    expect(await principalOf(cookieSet(accepted))).toMatchObject({ accountId: theirs.accountId });
  });

  it('an API key has no memberships and cannot switch', async () => {
    const { mine, theirs } = await personInTwoAccounts();
    expect((await call(listMemberships, { apiKey: mine.apiKey })).body).toEqual({ data: [] });
    const res = await call(switchAccount, { body: { account_id: theirs.accountId }, apiKey: mine.apiKey });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
  });
});
