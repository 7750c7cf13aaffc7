import { and, eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { accounts, phoneGroups } from '@/db/schema';
import { recordAudit } from '@/lib/audit/record';
import { config } from '@/lib/config';
import { validationError } from '@/lib/errors';
import { withTransaction } from '@/lib/transactions';
import type { SendingSettings } from './schemas';

/** The account's own sending settings. */
export async function accountSending(executor: Executor, accountId: string): Promise<SendingSettings> {
  const [account] = await executor
    .select({
      sendWindow: accounts.sendWindow,
      maxAttempts: accounts.maxAttempts,
      allowedCountries: accounts.allowedCountries,
      maxQueuedMessages: accounts.maxQueuedMessages,
      smartEncoding: accounts.smartEncoding,
      inboundDedupSeconds: accounts.inboundDedupSeconds,
    })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  if (!account) throw new Error(`accountSending: no account ${accountId}`);
  return {
    // Written only through sendWindowSchema, so its days are weekdays.
    send_window: (account.sendWindow as SendingSettings['send_window']) ?? null,
    max_attempts: account.maxAttempts,
    allowed_countries: account.allowedCountries ?? null,
    max_queued_messages: Math.min(account.maxQueuedMessages, config.accountMaxQueued),
    smart_encoding: account.smartEncoding,
    inbound_dedup_seconds: account.inboundDedupSeconds,
  };
}

/** What applies to a group's phones and sends: its overrides over the account's settings. */
export async function effectiveSending(
  executor: Executor,
  accountId: string,
  groupId: number | null,
): Promise<SendingSettings> {
  // Both asked at once: in a transaction, one round trip (pipelined on its connection).
  const [base, group] = await Promise.all([
    accountSending(executor, accountId),
    groupId === null
      ? undefined
      : executor
          .select({ overrides: phoneGroups.sendingOverrides })
          .from(phoneGroups)
          .where(and(eq(phoneGroups.id, groupId), eq(phoneGroups.accountId, accountId)))
          .then(([row]) => row),
  ]);
  return { ...base, ...(group?.overrides ?? {}) } as SendingSettings;
}

export async function updateAccountSending(
  executor: Executor,
  accountId: string,
  body: Partial<SendingSettings>,
): Promise<SendingSettings> {
  const changes = {
    ...(body.send_window !== undefined ? { sendWindow: body.send_window } : {}),
    ...(body.max_attempts !== undefined ? { maxAttempts: body.max_attempts } : {}),
    ...(body.allowed_countries !== undefined ? { allowedCountries: body.allowed_countries } : {}),
    ...(body.max_queued_messages !== undefined ? { maxQueuedMessages: body.max_queued_messages } : {}),
    ...(body.smart_encoding !== undefined ? { smartEncoding: body.smart_encoding } : {}),
    ...(body.inbound_dedup_seconds !== undefined ? { inboundDedupSeconds: body.inbound_dedup_seconds } : {}),
  };
  if (body.max_queued_messages !== undefined && body.max_queued_messages > config.accountMaxQueued) {
    throw validationError(
      'max_queued_messages',
      `must be at most ${config.accountMaxQueued} (this instance’s ACCOUNT_MAX_QUEUED)`,
    );
  }
  return withTransaction(executor, async (tx) => {
    if (Object.keys(changes).length > 0) {
      await tx.update(accounts).set(changes).where(eq(accounts.id, accountId));
      await recordAudit(tx, { accountId, action: 'sending_settings.updated', details: { ...body } });
    }
    return accountSending(tx, accountId);
  });
}
