import { eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { accounts } from '@/db/schema';
import { recordAudit } from '@/lib/audit/record';
import { config } from '@/lib/config';
import { DomainError } from '@/lib/errors';
import { withTransaction } from '@/lib/transactions';
import { contentPolicy, type InstanceRetention, overrideProblems } from './policy';
import type { DataSettings, DataSettingsChange } from './schemas';

/** The account's retention choices, what the instance keeps, and what applies. */
export async function accountDataSettings(
  executor: Executor,
  accountId: string,
  instance: InstanceRetention = config.retention,
): Promise<DataSettings> {
  const [account] = await executor
    .select({
      contentDays: accounts.retentionContentDays,
      contentMode: accounts.retentionContentMode,
      hashCounterpart: accounts.retentionHashCounterpart,
    })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  if (!account) throw new Error(`accountDataSettings: no account ${accountId}`);
  const policy = contentPolicy(instance, account);
  return {
    message_content: { days: policy.days, mode: policy.mode, hash_counterpart: policy.hashCounterpart },
    account: {
      content_days: account.contentDays,
      content_mode: account.contentMode,
      hash_counterpart: account.hashCounterpart,
    },
    instance: {
      content_days: instance.contentDays,
      content_mode: instance.contentMode,
      hash_counterpart: instance.hashCounterpart,
      webhook_deliveries_days: instance.webhookDeliveriesDays,
      heartbeats_days: instance.heartbeatsDays,
      audit_days: instance.auditDays,
    },
  };
}

/**
 * Changes the keys given; an account may keep less than the instance, never more (422 naming the
 * field otherwise). The change and its audit entry commit together.
 */
export async function updateAccountDataSettings(
  executor: Executor,
  accountId: string,
  change: DataSettingsChange,
  instance: InstanceRetention = config.retention,
): Promise<DataSettings> {
  const overrides = {
    contentDays: change.content_days,
    contentMode: change.content_mode,
    hashCounterpart: change.hash_counterpart,
  };
  const problems = overrideProblems(instance, overrides);
  if (problems.length > 0) {
    throw new DomainError(
      'VALIDATION_ERROR',
      problems.map((problem) => `${problem.path}: ${problem.message}`).join('; '),
      {
        errors: problems,
      },
    );
  }
  const set = {
    ...(change.content_days !== undefined ? { retentionContentDays: change.content_days } : {}),
    ...(change.content_mode !== undefined ? { retentionContentMode: change.content_mode } : {}),
    ...(change.hash_counterpart !== undefined ? { retentionHashCounterpart: change.hash_counterpart } : {}),
  };
  return withTransaction(executor, async (tx) => {
    if (Object.keys(set).length > 0) {
      await tx.update(accounts).set(set).where(eq(accounts.id, accountId));
      await recordAudit(tx, { accountId, action: 'data_settings.updated', details: { ...change } });
    }
    return accountDataSettings(tx, accountId, instance);
  });
}
