import { and, eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { messages } from '@/db/schema';
import type { DevicePrincipal } from '@/lib/auth/principal';
import { withTransaction } from '@/lib/db';
import { notFound } from '@/lib/errors';
import { findDevicePhone } from './device-phone';
import { type MessageWire, presentMessage } from './present';
import { failOrRetry } from './retry';
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
    if (report.status === 'failed') {
      const error = report.error ?? report.errorCode ?? 'failed on the phone';
      return presentMessage(await failOrRetry(tx, message, { error, errorCode: report.errorCode }));
    }
    return presentMessage(await transitionMessage(tx, message, report.status));
  });
}
