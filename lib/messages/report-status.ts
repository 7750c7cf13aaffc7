import { and, eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { messages } from '@/db/schema';
import type { DevicePrincipal } from '@/lib/auth/principal';
import { withTransaction } from '@/lib/db';
import { notFound } from '@/lib/errors';
import { findDevicePhone } from './device-phone';
import { isRetryableFailure } from './failures';
import { type MessageWire, presentMessage } from './present';
import { rerouteAfterFailure } from './reroute';
import type { DEVICE_REPORTED_STATUSES } from './schemas';
import { transitionMessage } from './state-machine';

export type StatusReport = {
  status: (typeof DEVICE_REPORTED_STATUSES)[number];
  error?: string;
  /** Android's SmsManager result, when the phone names one (see RETRYABLE_ERRORS). */
  errorCode?: string;
};

/** The phone tells what became of a message it was handed: sent, delivered or failed. */
export async function reportMessageStatus(
  executor: Executor,
  device: DevicePrincipal,
  messageId: string,
  report: StatusReport,
): Promise<MessageWire> {
  const phone = await findDevicePhone(executor, device);
  return withTransaction(executor, async (tx) => {
    const [message] = await tx
      .select()
      .from(messages)
      .where(
        and(
          eq(messages.id, messageId),
          eq(messages.accountId, phone.accountId),
          eq(messages.phoneId, phone.id),
          eq(messages.direction, 'outbound'),
        ),
      );
    if (!message) throw notFound('Message');
    const error = report.status === 'failed' ? (report.error ?? report.errorCode ?? 'failed on the phone') : undefined;
    if (report.status === 'failed' && isRetryableFailure(report.errorCode, report.error)) {
      // A group's message goes to another of its phones rather than failing.
      const moved = await rerouteAfterFailure(tx, message, error ?? 'failed on the phone');
      if (moved) return presentMessage(moved);
    }
    return presentMessage(await transitionMessage(tx, message, report.status, { error }));
  });
}
