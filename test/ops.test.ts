import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { POST as heartbeat } from '@/app/api/v1/heartbeats/route';
import { creditLedger, devices, phoneGroups, phones } from '@/db/schema';
import { createGroup } from '@/lib/groups/create';
import { setPlan } from '@/lib/ops/account-plan';
import { findAccount, listAccounts, showAccount } from '@/lib/ops/accounts';
import { revokeDevice } from '@/lib/ops/devices';
import { formatAccount, formatAccounts } from '@/lib/ops/format';
import { grantCredits } from '@/lib/ops/grant';
import { createPhone } from '@/lib/phones/create';
import { getPhone } from '@/lib/phones/read';
import { createTestAccount, testNumber } from './fixtures';
import { call } from './http';
import { errorCodeOf as codeOf } from './poll';
import { withTestDatabase } from './setup-db';

const { db } = withTestDatabase();

describe('listAccounts', () => {
  it('gives each account its plan, phone and group counts and total credits', async () => {
    const owner = await createTestAccount(db(), { plan: 'pro' });
    const group = await createGroup(db(), owner.accountId, { name: 'Extra' });
    await grantCredits(db(), { groupId: group.id, amount: 50 });
    await createPhone(db(), owner.accountId, { phone: testNumber() });
    const found = (await listAccounts(db())).find((a) => a.id === owner.accountId);
    expect(found).toMatchObject({ email: owner.email, plan: 'pro', phones: 2, groups: 2, credits: 150 });
    expect(formatAccounts(await listAccounts(db()))).toContain(owner.email);
  });
});

describe('findAccount and showAccount', () => {
  it('find an account by id or by email in any case', async () => {
    const owner = await createTestAccount(db());
    expect((await findAccount(db(), owner.accountId)).email).toBe(owner.email);
    expect((await findAccount(db(), `  ${owner.email.toUpperCase()} `)).id).toBe(owner.accountId);
    expect(await codeOf(findAccount(db(), 'nobody@example.test'))).toBe('NOT_FOUND');
    expect(await codeOf(findAccount(db(), crypto.randomUUID()))).toBe('NOT_FOUND');
  });

  it('show groups with balances, phones, devices and keys, never a secret', async () => {
    const owner = await createTestAccount(db());
    const details = await showAccount(db(), owner.email);
    expect(details.groups).toEqual([{ id: owner.defaultGroupId, name: 'Default', isDefault: true, balance: 100 }]);
    expect(details.phones.map((p) => p.phone)).toEqual([owner.phone]);
    expect(details.devices.map((d) => d.id)).toEqual([owner.deviceId]);
    expect(details.keys.map((k) => k.id)).toEqual([owner.apiKeyId]);
    const everything = JSON.stringify(details) + formatAccount(details);
    expect(everything).not.toContain(owner.apiKey);
    expect(everything).not.toContain(owner.deviceKey);
    expect(everything).not.toMatch(/hash/i);
    expect(formatAccount(details)).toContain(owner.phone);
  });
});

describe('grantCredits', () => {
  it('adds credits to a group through the ledger, with the note', async () => {
    const owner = await createTestAccount(db());
    const granted = await grantCredits(db(), { groupId: owner.defaultGroupId, amount: 250, note: 'support #42' });
    expect(granted).toMatchObject({ accountId: owner.accountId, balanceAfter: 350 });
    const rows = await db().select().from(creditLedger).where(eq(creditLedger.groupId, owner.defaultGroupId));
    expect(rows.find((r) => r.kind === 'operator_grant')).toMatchObject({
      amount: 250,
      balanceAfter: 350,
      note: 'support #42',
    });
  });

  it.each([0, -1, 1.5, Number.NaN, 1_000_000_001])('refuses the amount %s with VALIDATION_ERROR', async (amount) => {
    const owner = await createTestAccount(db());
    expect(await codeOf(grantCredits(db(), { groupId: owner.defaultGroupId, amount }))).toBe('VALIDATION_ERROR');
  });

  it('refuses a grant past the largest balance', async () => {
    const owner = await createTestAccount(db());
    await grantCredits(db(), { groupId: owner.defaultGroupId, amount: 1_000_000_000 });
    await grantCredits(db(), { groupId: owner.defaultGroupId, amount: 1_000_000_000 });
    expect(await codeOf(grantCredits(db(), { groupId: owner.defaultGroupId, amount: 1_000_000_000 }))).toBe(
      'VALIDATION_ERROR',
    );
  });

  it('refuses an unknown group (GROUP_NOT_FOUND) and a malformed id (VALIDATION_ERROR)', async () => {
    expect(await codeOf(grantCredits(db(), { groupId: 2147483647, amount: 1 }))).toBe('GROUP_NOT_FOUND');
    expect(await codeOf(grantCredits(db(), { groupId: Number('abc'), amount: 1 }))).toBe('VALIDATION_ERROR');
    expect(await codeOf(grantCredits(db(), { groupId: -4, amount: 1 }))).toBe('VALIDATION_ERROR');
  });
});

describe('setPlan', () => {
  it('moves an account to pro, lifting its limits', async () => {
    const owner = await createTestAccount(db());
    await createPhone(db(), owner.accountId, { phone: testNumber() });
    await createPhone(db(), owner.accountId, { phone: testNumber() });
    expect(await codeOf(createPhone(db(), owner.accountId, { phone: testNumber() }))).toBe('PLAN_LIMIT_REACHED');
    expect(await setPlan(db(), owner.email, 'pro')).toMatchObject({ previousPlan: 'free', plan: 'pro' });
    await createPhone(db(), owner.accountId, { phone: testNumber() });
  });

  it('refuses an unknown plan and an unknown account', async () => {
    const owner = await createTestAccount(db());
    expect(await codeOf(setPlan(db(), owner.accountId, 'gold'))).toBe('VALIDATION_ERROR');
    expect(await codeOf(setPlan(db(), 'ghost@example.test', 'pro'))).toBe('NOT_FOUND');
  });
});

describe('revokeDevice', () => {
  it('revokes the device, its key stops working and its phone loses the link', async () => {
    const owner = await createTestAccount(db());
    const before = await call(heartbeat, { body: { phone: owner.phone, status: 'online' }, apiKey: owner.deviceKey });
    expect(before.status).toBe(200);
    const revoked = await revokeDevice(db(), owner.deviceId);
    expect(revoked).toMatchObject({ alreadyRevoked: false, unlinkedPhones: [owner.phone] });
    const [device] = await db().select().from(devices).where(eq(devices.id, owner.deviceId));
    expect(device?.status).toBe('revoked');
    const [phone] = await db().select().from(phones).where(eq(phones.id, owner.phoneId));
    expect(phone?.deviceId).toBeNull();
    expect((await getPhone(db(), owner.accountId, owner.phoneId)).deviceConnected).toBe(false);
    const after = await call(heartbeat, { body: { phone: owner.phone, status: 'online' }, apiKey: owner.deviceKey });
    expect(after.status).toBe(401);
    expect((await revokeDevice(db(), owner.deviceId)).alreadyRevoked).toBe(true);
  });

  it('refuses an unknown device (NOT_FOUND) and a malformed id (VALIDATION_ERROR)', async () => {
    expect(await codeOf(revokeDevice(db(), crypto.randomUUID()))).toBe('NOT_FOUND');
    expect(await codeOf(revokeDevice(db(), 'device-1'))).toBe('VALIDATION_ERROR');
  });

  it('leaves other accounts alone', async () => {
    const owner = await createTestAccount(db());
    const other = await createTestAccount(db());
    await revokeDevice(db(), owner.deviceId);
    const [device] = await db().select().from(devices).where(eq(devices.id, other.deviceId));
    expect(device?.status).toBe('activated');
    const [group] = await db().select().from(phoneGroups).where(eq(phoneGroups.id, other.defaultGroupId));
    expect(group?.balance).toBe(100);
  });
});
