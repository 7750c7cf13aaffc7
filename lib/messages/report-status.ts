import { and, eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { type MessageStatus, messages } from '@/db/schema';
import type { DevicePrincipal } from '@/lib/auth/principal';
import { notFound } from '@/lib/errors';
import { lockForPause, pausePhone } from '@/lib/phones/pause';
import { withTransaction } from '@/lib/transactions';
import { type DevicePhone, findDevicePhone } from './device-phone';
import { isLimitExceeded } from './failures';
import { type MessageRow, type MessageWire, presentMessage } from './present';
import { failOrRetry } from './retry';
import type { DEVICE_REPORTED_STATUSES } from './schemas';
import { canMove, transitionMessage } from './state-machine';

export type StatusReport = {
  status: (typeof DEVICE_REPORTED_STATUSES)[number];
  error?: string;
  /** Android's SmsManager result, when the phone names one (see RETRYABLE_ERRORS). */
  errorCode?: string;
};

export type PhoneReport = {
  /** The moves the report makes, in order (the SMSGate app's Delivered is sent, then delivered). */
  moves: readonly MessageStatus[];
  /** Why it failed, with a `failed` move. */
  error?: string;
  errorCode?: string;
  /**
   * `strict` (the device API): an unknown id is 404 and a move the state machine forbids 409.
   * `lenient` (the SMSGate app, which repeats its reports): both change nothing.
   */
  mode: 'strict' | 'lenient';
  /** The states the report applies to, when not all: in any other the message stays as it is. */
  from?: readonly MessageStatus[];
};

/**
 * A phone tells what became of a message it was handed: the one path for every surface. The message
 * must be one of this phone's outbound messages, locked for the report; a failure goes through
 * `failOrRetry` (retried, or moved to another phone of its group, when a retry may fix it), any other
 * move through the state machine. A failure that is Android's RESULT_ERROR_LIMIT_EXCEEDED first pauses
 * the phone (lib/phones/pause.ts): the message then moves to another phone of its group, or waits on
 * this one until the pause ends. Answers the message as it ends, or undefined (lenient) when the
 * id is not the phone's.
 */
export async function applyPhoneReport(
  tx: Executor,
  phone: DevicePhone,
  messageId: string,
  report: PhoneReport,
): Promise<MessageRow | undefined> {
  const limited = report.moves.includes('failed') && isLimitExceeded(report.errorCode, report.error);
  // A report of Android's limiter pauses the phone: its row is locked before the message's (phone
  // before messages, the lock order of lib/phones/delete.ts).
  if (limited) await lockForPause(tx, phone);
  let [message] = await tx
    .select()
    .from(messages)
    .where(
      and(
        eq(messages.accountId, phone.accountId),
        eq(messages.id, messageId),
        eq(messages.phoneId, phone.id),
        eq(messages.direction, 'outbound'),
      ),
    )
    .for('update');
  if (!message) {
    if (report.mode === 'strict') throw notFound('Message');
    return undefined;
  }
  if (report.from && !report.from.includes(message.status)) return message;
  for (const to of report.moves) {
    if (report.mode === 'lenient' && !canMove(message.status, to)) continue;
    if (to === 'failed') {
      // Only a report that applies (the message was out on the phone) pauses it: a repeat of an old one does not.
      const pausedUntil = limited && message.status === 'dispatched' ? await pausePhone(tx, phone) : undefined;
      message = await failOrRetry(tx, message, {
        error: report.error ?? 'failed on the phone',
        errorCode: report.errorCode,
        notBefore: pausedUntil,
      });
    } else {
      message = await transitionMessage(tx, message, to);
    }
    if (message.status === 'queued') break; // retried or moved: nothing further applies to this hand-out
  }
  return message;
}

/** The device API's report (POST /api/v1/device/messages/{id}/status): sent, delivered or failed. */
export async function reportMessageStatus(
  executor: Executor,
  device: DevicePrincipal,
  messageId: string,
  report: StatusReport,
): Promise<MessageWire> {
  const phone = await findDevicePhone(executor, device);
  return withTransaction(executor, async (tx) => {
    const message = await applyPhoneReport(tx, phone, messageId, {
      moves: [report.status],
      error: report.error ?? report.errorCode,
      errorCode: report.errorCode,
      mode: 'strict',
    });
    return presentMessage(message as MessageRow);
  });
}
