import { describe, expect, it } from 'vitest';
import { bulkMessages, messages } from '@/db/schema';
import { claimCallbackId } from '@/lib/devices/callback-ids';
import { groupIdsOf } from '@/lib/groups/read';
import {
  countInboxExportReceipt,
  dropInboxExport,
  latestInboxExports,
  recordInboxExport,
} from '@/lib/integrations/inbox-exports';
import { claimExtId, extIdOfBulk, findByExtId, recordBulk } from '@/lib/integrations/smsgate-messages';
import { storedSmsgateSettings, writeSmsgateSettings } from '@/lib/integrations/smsgate-settings';
import { signingKeyOf } from '@/lib/integrations/smsgate-signing-key';
import {
  liveTokenKey,
  minterOf,
  recordTokens,
  revokeTokenTree,
  useRefreshToken,
} from '@/lib/integrations/smsgate-tokens';
import { accountOfSid, sealedAuthTokenOf, storeAuthToken } from '@/lib/integrations/twilio-credentials';
import { messageRowsNewestFirst } from '@/lib/messages/list';
import { redactMessageContent } from '@/lib/messages/redact';
import { createTestAccount, type TestAccount } from './fixtures';
import { withTestDatabase } from './setup-db';

/** The lib/ functions through which the adapters (lib/protocols) read and write Simgate's data. */

const { db } = withTestDatabase();

async function insertMessage(account: TestAccount, values: { to: string; createdAt: Date; content?: string }) {
  const [row] = await db()
    .insert(messages)
    .values({
      accountId: account.accountId,
      phoneId: account.phoneId,
      direction: 'outbound',
      from: account.phone,
      to: values.to,
      content: values.content ?? 'hello',
      status: 'delivered',
      segments: 1,
      encoding: 'GSM-7',
      createdAt: values.createdAt,
      updatedAt: values.createdAt,
    })
    .returning();
  return row!;
}

describe('messages for the wire formats', () => {
  it('lists the account’s rows newest first, filtered by number and period, after a keyset position', async () => {
    const account = await createTestAccount(db());
    const other = await createTestAccount(db());
    const at = (minute: number) => new Date(Date.UTC(2031, 0, 1, 12, minute));
    const a = await insertMessage(account, { to: '+14155550101', createdAt: at(1) });
    const b = await insertMessage(account, { to: '+14155550102', createdAt: at(2) });
    const c = await insertMessage(account, { to: '+14155550101', createdAt: at(3) });
    await insertMessage(other, { to: '+14155550101', createdAt: at(2) });

    const ids = async (query: Parameters<typeof messageRowsNewestFirst>[2]) =>
      (await messageRowsNewestFirst(db(), account.accountId, query)).map((row) => row.id);
    expect(await ids({ limit: 10 })).toEqual([c.id, b.id, a.id]);
    expect(await ids({ limit: 2 })).toEqual([c.id, b.id]);
    expect(await ids({ limit: 10, to: '+14155550101' })).toEqual([c.id, a.id]);
    expect(await ids({ limit: 10, from: account.phone, to: '+14155550102' })).toEqual([b.id]);
    expect(await ids({ limit: 10, from: '+14155550199' })).toEqual([]);
    expect(await ids({ limit: 10, createdFrom: at(2), createdBefore: at(3) })).toEqual([b.id]);
    expect(await ids({ limit: 10, after: { createdAt: b.createdAt, id: b.id } })).toEqual([a.id]);
  });

  it('redacts the content of the account’s message only', async () => {
    const account = await createTestAccount(db());
    const other = await createTestAccount(db());
    const row = await insertMessage(account, { to: '+14155550103', createdAt: new Date(), content: 'secret' });
    expect(await redactMessageContent(db(), other.accountId, row.id)).toBeUndefined();
    const redacted = await redactMessageContent(db(), account.accountId, row.id);
    expect(redacted).toMatchObject({ id: row.id, content: '', to: '+14155550103', status: 'delivered' });
  });

  it('names the account’s groups', async () => {
    const account = await createTestAccount(db());
    await createTestAccount(db());
    expect(await groupIdsOf(db(), account.accountId)).toEqual([account.defaultGroupId]);
  });
});

describe('the SMSGate integrator API’s records', () => {
  it('claims an integrator’s id once per account and ties it to its bulk', async () => {
    const account = await createTestAccount(db());
    const other = await createTestAccount(db());
    const id = await claimExtId(db(), account.accountId, 'ext-1');
    expect(id).toBeDefined();
    expect(await claimExtId(db(), account.accountId, 'ext-1')).toBeUndefined();
    expect(await claimExtId(db(), other.accountId, 'ext-1')).toBeDefined();
    expect(await findByExtId(db(), account.accountId, 'ext-1')).toEqual({ bulkId: null });
    const [bulk] = await db()
      .insert(bulkMessages)
      .values({ accountId: account.accountId, content: 'hello', recipientCount: 1 })
      .returning({ id: bulkMessages.id });
    const bulkId = bulk!.id;
    await recordBulk(db(), account.accountId, id!, { bulkId, phoneId: account.phoneId, recipients: [] });
    expect(await findByExtId(db(), account.accountId, 'ext-1')).toEqual({ bulkId });
    expect(await extIdOfBulk(db(), account.accountId, bulkId)).toBe('ext-1');
    expect(await extIdOfBulk(db(), other.accountId, bulkId)).toBeUndefined();
  });

  it('keeps one signing key per account, made on first use', async () => {
    const account = await createTestAccount(db());
    const first = await signingKeyOf(db(), account.accountId);
    expect(first.length).toBeGreaterThanOrEqual(16);
    expect(await signingKeyOf(db(), account.accountId)).toBe(first);
  });

  it('accepts a token while its row and key live; a refresh token is used once; revoking takes the descendants', async () => {
    const account = await createTestAccount(db());
    const other = await createTestAccount(db());
    const exp = Math.floor(Date.now() / 1000) + 3600;
    await recordTokens(db(), account.accountId, account.apiKeyId, [
      { jti: 'access-1', use: 'access', parentJti: null, exp },
      { jti: 'refresh-1', use: 'refresh', parentJti: 'access-1', exp },
      { jti: 'access-2', use: 'access', parentJti: 'access-1', exp },
    ]);
    const now = new Date();
    expect(await liveTokenKey(db(), account.accountId, 'access-1', now)).toEqual({
      keyId: account.apiKeyId,
      role: null,
    });
    expect(await liveTokenKey(db(), other.accountId, 'access-1', now)).toBeUndefined();
    expect(await liveTokenKey(db(), account.accountId, 'access-1', new Date(exp * 1000 + 1000))).toBeUndefined();
    expect(await minterOf(db(), account.accountId, 'access-2')).toBe('access-1');
    expect(await minterOf(db(), account.accountId, null)).toBeNull();
    expect(await useRefreshToken(db(), account.accountId, 'refresh-1')).toEqual({ accessJti: 'access-1' });
    expect(await useRefreshToken(db(), account.accountId, 'refresh-1')).toBeUndefined();
    await expect(revokeTokenTree(db(), other.accountId, 'access-1')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await revokeTokenTree(db(), account.accountId, 'access-1');
    expect(await liveTokenKey(db(), account.accountId, 'access-1', now)).toBeUndefined();
    expect(await liveTokenKey(db(), account.accountId, 'access-2', now)).toBeUndefined();
  });

  it('stores the settings document and applies its pacing and window to the account', async () => {
    const account = await createTestAccount(db());
    expect(await storedSmsgateSettings(db(), account.accountId)).toEqual({
      stored: {},
      window: null,
      pacing: { messagesPerMinute: 10, hourlyCap: null, dailyCap: null },
    });
    const window = { time_zone: 'UTC', days: ['mon'], start: '09:00', end: '17:00' };
    const phones = await writeSmsgateSettings(db(), account.accountId, {
      dailyCap: 50,
      sendWindow: window,
      stored: { gateway: { name: 'x' } },
    });
    expect(phones).toBe(1);
    expect(await storedSmsgateSettings(db(), account.accountId)).toEqual({
      stored: { gateway: { name: 'x' } },
      window,
      pacing: { messagesPerMinute: 10, hourlyCap: null, dailyCap: 50 },
    });
  });

  it('counts a re-sent SMS toward the phone’s open inbox export whose period holds it', async () => {
    const account = await createTestAccount(db());
    const since = new Date(Date.now() - 3600_000);
    const until = new Date();
    const request = await recordInboxExport(db(), account.accountId, {
      phoneId: account.phoneId,
      since,
      until,
      messageTypes: ['SMS', 'DATA_SMS'],
    });
    expect(request).toMatchObject({ messageTypes: 'SMS,DATA_SMS', recovered: 0, repeated: 0 });
    const phone = { id: account.phoneId, accountId: account.accountId };
    await countInboxExportReceipt(db(), phone, new Date(since.getTime() + 1000), true, 15);
    await countInboxExportReceipt(db(), phone, new Date(since.getTime() + 2000), false, 15);
    await countInboxExportReceipt(db(), phone, new Date(until.getTime() + 60_000), true, 15);
    const [listed] = await latestInboxExports(db(), account.accountId, account.phoneId, 10);
    expect(listed).toMatchObject({ id: request.id, recovered: 1, repeated: 1 });
    await dropInboxExport(db(), account.accountId, request.id);
    expect(await latestInboxExports(db(), account.accountId, account.phoneId, 10)).toEqual([]);
  });
});

describe('credentials of other wire formats', () => {
  it('stores an account’s Twilio SID and sealed Auth Token, found by the SID', async () => {
    const account = await createTestAccount(db());
    expect(await sealedAuthTokenOf(db(), account.accountId)).toBeNull();
    const accountSid = `AC${crypto.randomUUID().replaceAll('-', '')}`;
    await storeAuthToken(db(), account.accountId, { accountSid, sealed: 'sealed-token' });
    expect(await sealedAuthTokenOf(db(), account.accountId, { lock: true })).toBe('sealed-token');
    expect(await accountOfSid(db(), accountSid)).toEqual({ accountId: account.accountId, sealed: 'sealed-token' });
    expect(await accountOfSid(db(), `AC${'0'.repeat(32)}`)).toBeUndefined();
  });

  it('claims an app callback’s id once per device', async () => {
    const account = await createTestAccount(db());
    expect(await claimCallbackId(db(), account.deviceId, 'call-1', 600)).toBe(true);
    expect(await claimCallbackId(db(), account.deviceId, 'call-1', 600)).toBe(false);
    expect(await claimCallbackId(db(), account.deviceId, 'call-2', 600)).toBe(true);
  });
});
