import type { Database, Executor } from '@/db';
import type { DevicePrincipal } from '@/lib/auth/principal';
import { DomainError } from '@/lib/errors';
import { awaitingCancel } from '@/lib/messages/cancelling';
import { claimOutbox, handedOutMessages } from '@/lib/messages/claim';
import { type DevicePhone, findDevicePhone } from '@/lib/messages/device-phone';
import type { MessageRow } from '@/lib/messages/present';
import { applyPhoneReport } from '@/lib/messages/report-status';
import type { MessageStatus } from '@/lib/messages/states';
import { withTransaction } from '@/lib/transactions';
import { type AppState, stateReport } from './schemas';

/** Most messages one pull hands out, as the reference server (`maxPendingBatch`). */
export const MAX_PULL = 100;

/**
 * A message in the app's shape (GatewayApi.Message). An encrypted one carries its ciphertext in
 * `textMessage.text` and `phoneNumbers` with `isEncrypted: true`: the app decrypts both with its
 * passphrase before sending (MessagesService.kt at 0cdc5d8). Dates: RFC 3339 UTC with milliseconds, as Gson reads them. */
export function presentForApp(row: MessageRow) {
  // A data SMS is `dataMessage: { data, port }` alone: the app reads it before any text (GatewayApi.Message.content).
  const content =
    row.kind === 'data'
      ? { dataMessage: { data: row.content, port: row.dataPort ?? 0 } }
      : { message: row.content, textMessage: { text: row.content } };
  return {
    id: row.id,
    ...content,
    phoneNumbers: [row.to],
    ...(row.sim !== null ? { simNumber: row.sim } : {}),
    withDeliveryReport: true,
    isEncrypted: row.encrypted,
    validUntil: (row.expiresAt ?? new Date(row.sendAt.getTime() + 86_400_000)).toISOString(),
    createdAt: row.createdAt.toISOString(),
    // A message asked to be cancelled: the app drops it if not sent yet and PATCHes `Cancelled`.
    state: row.status === 'cancelling' ? ('Cancelling' as const) : ('Pending' as const),
  };
}

/**
 * GET /message: first the messages the phone holds and was asked to drop (`state: Cancelling`, as
 * the reference server lists Pending and Cancelling together), then the phone's due queued messages,
 * claimed exactly as the device outbox claim does (pacing, one phone only, now `dispatched`), plus
 * those it was handed before and has not reported on: a pull the app never received hands them out
 * again, and the app skips ids it holds.
 */
export async function pullForApp(db: Database, device: DevicePrincipal, order: 'lifo' | 'fifo') {
  const phone = await findDevicePhone(db, device);
  const cancelling = await awaitingCancel(db, phone, { limit: MAX_PULL });
  const claimed =
    cancelling.length < MAX_PULL
      ? await claimOutbox(db, device, {
          limit: MAX_PULL - cancelling.length,
          waitMs: 0,
          order: order === 'lifo' ? 'newest' : 'oldest',
        })
      : [];
  const handedBefore = await handedOutMessages(db, phone, {
    except: claimed.map((row) => row.id),
    limit: Math.max(0, MAX_PULL - cancelling.length - claimed.length),
  });
  return [...cancelling, ...claimed, ...handedBefore].map(presentForApp);
}

/**
 * Our moves for a state the app reports; Processed and Pending say the phone holds it (no change).
 * `Cancelled` ends a message asked to be cancelled (`cancelling`, refunded); the app cancelling one
 * on its own (its local API) fails it, since nothing here asked (the lenient report skips the move
 * the state machine forbids).
 */
const MOVES: Record<AppState, MessageStatus[]> = {
  Pending: [],
  Processed: [],
  Cancelling: [],
  Sent: ['sent'],
  Delivered: ['sent', 'delivered'],
  Failed: ['failed'],
  Cancelled: ['cancelled', 'failed'],
};

/** The app cancels only a message it has not sent (MessagesService.cancelMessage: Pending only). */
const FROM: Partial<Record<AppState, readonly MessageStatus[]>> = { Cancelled: ['dispatched', 'cancelling'] };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Applies one state the app reports for one of its phone's messages (lib/messages/report-status.ts
 * `applyPhoneReport`, leniently: the app repeats reports, through PATCH /message and its webhooks, so
 * a move already made or one the machine forbids changes nothing, and an unknown or foreign id is
 * skipped).
 */
export async function applyAppState(
  executor: Executor,
  phone: DevicePhone,
  report: { id: string; state: AppState; error?: string | null },
): Promise<void> {
  if (!UUID.test(report.id)) return;
  const error =
    report.state === 'Failed'
      ? report.error || 'Failed on the phone'
      : report.state === 'Cancelled'
        ? 'Cancelled on the phone'
        : undefined;
  await withTransaction(executor, (tx) =>
    applyPhoneReport(tx, phone, report.id, {
      moves: MOVES[report.state],
      error,
      mode: 'lenient',
      from: FROM[report.state],
    }),
  ).catch((caught: unknown) => {
    if (!(caught instanceof DomainError && caught.code === 'INVALID_TRANSITION')) throw caught;
  });
}

/** PATCH /message: each well-formed report is applied; a malformed one is skipped, never the batch. */
export async function applyAppReports(db: Database, device: DevicePrincipal, items: unknown[]): Promise<void> {
  const phone = await findDevicePhone(db, device);
  for (const item of items) {
    const parsed = stateReport.safeParse(item);
    if (!parsed.success) continue;
    const report = parsed.data;
    const error = report.recipients?.find((recipient) => recipient?.error)?.error;
    await applyAppState(db, phone, { id: report.id, state: report.state, error });
  }
}
