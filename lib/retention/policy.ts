import type { RetentionMode } from '@/db/schema';
import type { config } from '@/lib/config';

/** What the instance keeps (the RETENTION_* settings); `contentDays` null keeps content forever. */
export type InstanceRetention = typeof config.retention;

/** An account's own choices for its message content (accounts.retention_*); null follows the instance. */
export type ContentOverrides = {
  contentDays: number | null;
  contentMode: RetentionMode | null;
  hashCounterpart: boolean | null;
};

/** What applies to an account's messages. */
export type ContentPolicy = { days: number | null; mode: RetentionMode; hashCounterpart: boolean };

/**
 * An account may keep less than the instance, never more: the fewer days of the two, `delete`
 * when either says so, the counterpart hashed when either says so.
 */
export function contentPolicy(instance: InstanceRetention, account: ContentOverrides): ContentPolicy {
  const days =
    instance.contentDays === null
      ? account.contentDays
      : Math.min(instance.contentDays, account.contentDays ?? instance.contentDays);
  const mode = instance.contentMode === 'delete' || account.contentMode === 'delete' ? 'delete' : 'hash';
  return { days, mode, hashCounterpart: instance.hashCounterpart || account.hashCounterpart === true };
}

/** Where an account's choice would keep more than the instance allows, by field (empty: nowhere). */
export function overrideProblems(
  instance: InstanceRetention,
  account: Partial<ContentOverrides>,
): { path: string; message: string }[] {
  const problems: { path: string; message: string }[] = [];
  if (
    account.contentDays !== undefined &&
    account.contentDays !== null &&
    instance.contentDays !== null &&
    account.contentDays > instance.contentDays
  ) {
    problems.push({
      path: 'content_days',
      message: `at most ${instance.contentDays}: this instance keeps message content ${instance.contentDays} days`,
    });
  }
  if (account.contentMode === 'hash' && instance.contentMode === 'delete') {
    problems.push({ path: 'content_mode', message: 'this instance deletes content; an account cannot keep a hash' });
  }
  if (account.hashCounterpart === false && instance.hashCounterpart) {
    problems.push({
      path: 'hash_counterpart',
      message: 'this instance hashes counterpart numbers; an account cannot keep them',
    });
  }
  return problems;
}
