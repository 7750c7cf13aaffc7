import type { Executor } from '@/db';
import { config } from '@/lib/config';
import { effectiveSending } from '@/lib/settings/settings';
import { isRetryableFailure } from './failures';
import type { MessageRow } from './present';
import { rerouteAfterFailure } from './reroute';
import { requeueMessage, transitionMessage } from './state-machine';

export type FailureReport = {
  error: string;
  errorCode?: string;
  /** A retry on the same phone goes no earlier than this (the end of the phone's pause). */
  notBefore?: Date;
};

/**
 * A phone reports that a message it was handed failed. A failure a retry may fix (failures.ts),
 * while the message has attempts left (`max_attempts` of its group or account), is tried again:
 * a message sent through a group goes to another online phone of the group at once, any other
 * is queued again on its phone after the backoff (RETRY_BACKOFF_SECONDS), or after the phone's pause
 * when it was paused for the failure (`notBefore`). Each retry is a
 * `retrying` history row and one more attempt; the charge stays one. The last failure, or a final
 * one, is `failed` as before: refunded once, `message.failed` once, with its `attempts`.
 */
export async function failOrRetry(tx: Executor, message: MessageRow, report: FailureReport): Promise<MessageRow> {
  if (message.status === 'dispatched' && isRetryableFailure(report.errorCode, report.error)) {
    const { max_attempts: maxAttempts } = await effectiveSending(tx, message.accountId, message.groupId);
    if (message.attempts < maxAttempts) {
      const retried = (await rerouteAfterFailure(tx, message, report.error)) ?? (await retryLater(tx, message, report));
      if (retried) return retried;
    }
  }
  return transitionMessage(tx, message, 'failed', { error: report.error });
}

function backoffMs(attempt: number): number {
  const steps = config.retryBackoffSeconds;
  return (steps[Math.min(attempt - 1, steps.length - 1)] ?? 60) * 1000;
}

async function retryLater(tx: Executor, message: MessageRow, report: FailureReport): Promise<MessageRow | undefined> {
  const sendAt = new Date(Math.max(Date.now() + backoffMs(message.attempts), report.notBefore?.getTime() ?? 0));
  return requeueMessage(tx, message, {
    kind: 'retrying',
    sendAt,
    error: report.error,
    note: `attempt ${message.attempts} failed: ${report.error}; retrying at ${sendAt.toISOString()}`,
  });
}
