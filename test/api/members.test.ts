import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { GET as listAudit } from '@/app/api/v1/audit-log/route';
import { DELETE as removeMember, PATCH as updateMember } from '@/app/api/v1/members/[id]/route';
import { GET as listMembers } from '@/app/api/v1/members/route';
import { GET as listPhones } from '@/app/api/v1/phones/route';
import { members } from '@/db/schema';
import { createTestAccount, type TestAccount } from '../fixtures';
import { call } from '../http';
import { addTestMember, asMember, ownerOf, type TestMember } from '../member-fixtures';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

let account: TestAccount;
let owner: TestMember;
beforeAll(async () => {
  account = await createTestAccount(db());
  owner = await ownerOf(db(), account.accountId, account.email);
});

function patchRole(by: TestMember, id: string, role: string) {
  return call(updateMember, { method: 'PATCH', body: { role }, params: { id }, headers: asMember(by) });
}

function remove(by: TestMember, id: string) {
  return call(removeMember, { method: 'DELETE', params: { id }, headers: asMember(by) });
}

async function roleOf(id: string) {
  const [row] = await db().select({ role: members.role }).from(members).where(eq(members.id, id));
  return row?.role;
}

/** A fresh account with its owner, for tests that count owners. */
async function freshAccount() {
  const fresh = await createTestAccount(db());
  return { fresh, owner: await ownerOf(db(), fresh.accountId, fresh.email) };
}

describe('GET /api/v1/members', () => {
  it('lists the account’s members, the first owner first, and says who the caller is', async () => {
    const operator = await addTestMember(db(), account.accountId, 'operator');
    const other = await createTestAccount(db());
    const res = await call(listMembers, { headers: asMember(operator) });
    expect(res.status).toBe(200);
    expect(res.body.data[0]).toEqual({
      id: owner.memberId,
      email: account.email,
      role: 'owner',
      joined_at: expect.stringMatching(/Z$/),
    });
    expect(res.body.data).toContainEqual(expect.objectContaining({ id: operator.memberId, role: 'operator' }));
    expect(res.body.data.map((m: { email: string }) => m.email)).not.toContain(other.email);
    expect(res.body.you).toEqual({ member_id: operator.memberId, role: 'operator' });
    // An API key without a role is no member and may do everything.
    const byKey = await call(listMembers, { apiKey: account.apiKey });
    expect(byKey.body.you).toEqual({ member_id: null, role: null });
  });
});

describe('PATCH /api/v1/members/{id}', () => {
  it('lets an admin change a role; the member’s session takes it on its next request; audited by member', async () => {
    const admin = await addTestMember(db(), account.accountId, 'admin');
    const viewer = await addTestMember(db(), account.accountId, 'viewer');
    const res = await patchRole(admin, viewer.memberId, 'developer');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: viewer.memberId, role: 'developer' });
    const me = await call(listMembers, { headers: asMember(viewer) });
    expect(me.body.you.role).toBe('developer');
    const audit = await call(listAudit, {
      path: `/api/v1/audit-log?action=member.role_changed&member_id=${admin.memberId}`,
      apiKey: account.apiKey,
    });
    expect(audit.body.data).toHaveLength(1);
    expect(audit.body.data[0]).toMatchObject({
      target: viewer.memberId,
      member: { id: admin.memberId, email: admin.email },
      actor: { kind: 'session', label: admin.email },
      details: { email: viewer.email, from: 'viewer', to: 'developer' },
    });
  });

  it('refuses a developer, naming the roles that may', async () => {
    const developer = await addTestMember(db(), account.accountId, 'developer');
    const viewer = await addTestMember(db(), account.accountId, 'viewer');
    const res = await patchRole(developer, viewer.memberId, 'operator');
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({
      code: 'FORBIDDEN',
      detail: 'Your role (developer) may not change members; an owner or admin may.',
    });
    expect(await roleOf(viewer.memberId)).toBe('viewer');
  });

  it('lets only an owner grant or take away owner', async () => {
    const admin = await addTestMember(db(), account.accountId, 'admin');
    const operator = await addTestMember(db(), account.accountId, 'operator');
    expect((await patchRole(admin, operator.memberId, 'owner')).status).toBe(403);
    expect((await patchRole(admin, owner.memberId, 'admin')).status).toBe(403);
    expect(await roleOf(owner.memberId)).toBe('owner');
    expect((await patchRole(owner, operator.memberId, 'owner')).status).toBe(200);
    expect(await roleOf(operator.memberId)).toBe('owner');
    expect((await patchRole(owner, operator.memberId, 'viewer')).status).toBe(200);
  });

  it('keeps the last owner: 409 CONFLICT, and a second owner may then step down', async () => {
    const { fresh, owner: only } = await freshAccount();
    const res = await patchRole(only, only.memberId, 'admin');
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('CONFLICT');
    const second = await addTestMember(db(), fresh.accountId, 'owner');
    expect((await patchRole(only, only.memberId, 'admin')).status).toBe(200);
    expect(await roleOf(second.memberId)).toBe('owner');
  });

  // On real Postgres (TEST_DATABASE_URL, as CI runs it) the two transactions overlap; the member rows'
  // lock makes the second count the owners after the first committed.
  it('leaves one owner when the only two owners step down at once', async () => {
    for (let round = 0; round < 3; round++) {
      const { fresh, owner: first } = await freshAccount();
      const second = await addTestMember(db(), fresh.accountId, 'owner');
      const answers = await Promise.all([
        patchRole(first, first.memberId, 'admin'),
        patchRole(second, second.memberId, 'admin'),
      ]);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
      const roles = [await roleOf(first.memberId), await roleOf(second.memberId)];
      expect(roles.filter((role) => role === 'owner')).toHaveLength(1);
    }
  });

  it('answers 404 for another account’s member, and changes nothing', async () => {
    const other = await createTestAccount(db());
    const stranger = await addTestMember(db(), other.accountId, 'viewer');
    const res = await patchRole(owner, stranger.memberId, 'admin');
    expect(res.status).toBe(404);
    expect(await roleOf(stranger.memberId)).toBe('viewer');
    expect((await remove(owner, stranger.memberId)).status).toBe(404);
    expect(await roleOf(stranger.memberId)).toBe('viewer');
  });
});

describe('DELETE /api/v1/members/{id}', () => {
  it('removes a member, whose session answers 401 at once', async () => {
    const operator = await addTestMember(db(), account.accountId, 'operator');
    expect((await call(listPhones, { headers: asMember(operator) })).status).toBe(200);
    expect((await remove(owner, operator.memberId)).status).toBe(204);
    expect(await roleOf(operator.memberId)).toBeUndefined();
    const after = await call(listPhones, { headers: asMember(operator) });
    expect(after.status).toBe(401);
    const audit = await call(listAudit, { path: '/api/v1/audit-log?action=member.removed', apiKey: account.apiKey });
    expect(audit.body.data[0]).toMatchObject({
      target: operator.memberId,
      member: { id: owner.memberId },
      details: { email: operator.email, role: 'operator' },
    });
  });

  it('lets any member leave, and keeps their entries named by their email', async () => {
    const viewer = await addTestMember(db(), account.accountId, 'viewer');
    expect((await remove(viewer, viewer.memberId)).status).toBe(204);
    const audit = await call(listAudit, {
      path: `/api/v1/audit-log?member_id=${viewer.memberId}`,
      apiKey: account.apiKey,
    });
    expect(audit.body.data[0]).toMatchObject({
      action: 'member.left',
      member: { id: viewer.memberId, email: viewer.email },
    });
  });

  it('refuses a developer removing someone else, and an admin removing an owner', async () => {
    const developer = await addTestMember(db(), account.accountId, 'developer');
    const admin = await addTestMember(db(), account.accountId, 'admin');
    const viewer = await addTestMember(db(), account.accountId, 'viewer');
    expect((await remove(developer, viewer.memberId)).status).toBe(403);
    expect((await remove(admin, owner.memberId)).status).toBe(403);
    expect((await remove(admin, viewer.memberId)).status).toBe(204);
  });

  it('keeps the last owner, even when they leave', async () => {
    const { owner: only } = await freshAccount();
    const res = await remove(only, only.memberId);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('CONFLICT');
    expect(await roleOf(only.memberId)).toBe('owner');
  });
});
