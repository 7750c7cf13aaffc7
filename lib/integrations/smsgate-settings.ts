import { eq, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { accounts, phones, type SendWindow } from '@/db/schema';

/**
 * The settings document of the SMSGate integrator API as the account keeps it: the sections
 * Simgate only stores and echoes back (accounts.smsgate_settings), next to what the document's
 * mapped parts set (the send window, the phones' pacing, the sealed signing key).
 */

export type SettingsDocument = Record<string, Record<string, unknown>>;

/**
 * The pacing every phone of the account shares now: each field is the value all its phones hold
 * (a cap may be null: none), or undefined when they differ or the account has no phone.
 */
export type SharedPacing = {
  messagesPerMinute?: number;
  hourlyCap?: number | null;
  dailyCap?: number | null;
};

/** The stored document (empty when none), the account's send window and its phones' shared pacing. */
export async function storedSmsgateSettings(
  executor: Executor,
  accountId: string,
): Promise<{ stored: SettingsDocument; window: SendWindow | null; pacing: SharedPacing }> {
  const [account] = await executor
    .select({ stored: accounts.smsgateSettings, window: accounts.sendWindow })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  // A cap is at least 1, so 0 stands for "none" when counting the distinct values.
  const [shared] = await executor
    .select({
      phones: sql<number>`count(*)::int`,
      paces: sql<number>`count(distinct ${phones.messagesPerMinute})::int`,
      pace: sql<number | null>`min(${phones.messagesPerMinute})`,
      hourlies: sql<number>`count(distinct coalesce(${phones.hourlyCap}, 0))::int`,
      hourly: sql<number | null>`min(${phones.hourlyCap})`,
      dailies: sql<number>`count(distinct coalesce(${phones.dailyCap}, 0))::int`,
      daily: sql<number | null>`min(${phones.dailyCap})`,
    })
    .from(phones)
    .where(eq(phones.accountId, accountId));
  const agreed = (kinds: number | undefined, value: number | null | undefined) =>
    Number(kinds) === 1 ? (value === null || value === undefined ? null : Number(value)) : undefined;
  const pace = agreed(shared?.paces, shared?.pace);
  return {
    stored: (account?.stored ?? {}) as SettingsDocument,
    window: account?.window ?? null,
    pacing: {
      ...(pace !== undefined && pace !== null ? { messagesPerMinute: pace } : {}),
      hourlyCap: agreed(shared?.hourlies, shared?.hourly),
      dailyCap: agreed(shared?.dailies, shared?.daily),
    },
  };
}

/** What a settings change writes; a field left out is left as it is. */
export type SmsgateSettingsWrite = {
  /** Set on every phone of the account. */
  messagesPerMinute?: number;
  /** Set on every phone of the account (null: no cap). */
  hourlyCap?: number | null;
  /** Set on every phone of the account (null: no cap). */
  dailyCap?: number | null;
  /** The account's send window (null: none). */
  sendWindow?: SendWindow | null;
  /** The signing key, sealed (lib/integrations/smsgate-signing-key). */
  sealedSigningKey?: string;
  /** The document stored and echoed back, without the signing key. */
  stored: SettingsDocument;
};

/** Writes a settings change in `tx` (one transaction); answers how many phones the account has. */
export async function writeSmsgateSettings(
  tx: Executor,
  accountId: string,
  write: SmsgateSettingsWrite,
): Promise<number> {
  if (write.messagesPerMinute !== undefined)
    await tx.update(phones).set({ messagesPerMinute: write.messagesPerMinute }).where(eq(phones.accountId, accountId));
  if (write.hourlyCap !== undefined)
    await tx.update(phones).set({ hourlyCap: write.hourlyCap }).where(eq(phones.accountId, accountId));
  if (write.dailyCap !== undefined)
    await tx.update(phones).set({ dailyCap: write.dailyCap }).where(eq(phones.accountId, accountId));
  if (write.sendWindow !== undefined)
    await tx.update(accounts).set({ sendWindow: write.sendWindow }).where(eq(accounts.id, accountId));
  if (write.sealedSigningKey !== undefined) {
    await tx
      .update(accounts)
      .set({ smsgateSigningKeyEncrypted: write.sealedSigningKey })
      .where(eq(accounts.id, accountId));
  }
  await tx.update(accounts).set({ smsgateSettings: write.stored }).where(eq(accounts.id, accountId));
  const [phoneCount] = await tx
    .select({ count: sql<number>`count(*)::int` })
    .from(phones)
    .where(eq(phones.accountId, accountId));
  return phoneCount?.count ?? 0;
}
