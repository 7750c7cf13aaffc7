import { afterCommit } from '@/db/commit-hooks';
import type { AutomationEntry, HistoryStatus, LedgerKind } from '@/db/schema';
import { type AcceptedSurface, metrics } from './registry';

/**
 * What the domain tells the metrics, each fact at the one place it happens. Counts made inside a
 * transaction wait for its commit (`afterCommit`): a rolled-back send or claim counts nothing.
 */

/**
 * `count` outbound messages accepted (each a `queued` history row), by the surface they came
 * through. `charged`: the credits were taken in the send's own statement (not through
 * lib/credits/ledger.ts, which counts its own).
 */
export function messagesAccepted(
  executor: object,
  count: number,
  options: { surface: AcceptedSurface; charged?: boolean },
): void {
  const { surface, charged } = options;
  afterCommit(executor, () => {
    metrics.messagesAccepted.inc({ surface }, count);
    metrics.transitions.inc({ to: 'queued' }, count);
    if (charged) metrics.creditsMoved.inc({ kind: 'message_charge' }, count);
  });
}

type Moved = { status: HistoryStatus; createdAt: Date; sendAt: Date };

/**
 * Messages that entered a state (their history rows): the transition, and for a hand-over to a
 * phone or a delivery report the wait since the message was accepted or fell due.
 */
export function messagesMoved(executor: object, rows: readonly Moved[], at: Date): void {
  if (rows.length === 0) return;
  afterCommit(executor, () => {
    for (const row of rows) {
      metrics.transitions.inc({ to: row.status });
      if (row.status !== 'dispatched' && row.status !== 'delivered') continue;
      const since = Math.max(row.createdAt.getTime(), row.sendAt.getTime());
      const waited = Math.max(0, (at.getTime() - since) / 1000);
      (row.status === 'dispatched' ? metrics.dispatchLatency : metrics.deliveryLatency).observe(waited);
    }
  });
}

export function creditsMoved(executor: object, kind: LedgerKind, credits: number): void {
  afterCommit(executor, () => metrics.creditsMoved.inc({ kind }, credits));
}

export function heartbeatsRecorded(executor: object, count: number): void {
  if (count > 0) afterCommit(executor, () => metrics.heartbeats.inc(count));
}

/**
 * What automation did about an inbound message, as its record says: `kind` the action, `result`
 * `sent` or why it was skipped (a cap reached, the recipient opted out, …).
 */
export function automationActed(executor: object, entries: readonly AutomationEntry[]): void {
  if (entries.length === 0) return;
  afterCommit(executor, () => {
    for (const entry of entries) {
      const result = entry.result === 'sent' ? 'sent' : (entry.reason ?? 'skipped');
      metrics.automationActions.inc({ kind: entry.action, result });
    }
  });
}

/** An inbound stop or start word: automation of kind `opt_out`, its result `opted_out` or `opted_in`. */
export function optOutWordActed(executor: object, result: 'opted_out' | 'opted_in'): void {
  afterCommit(executor, () => metrics.automationActions.inc({ kind: 'opt_out', result }));
}

/** One webhook post and its recorded outcome. */
export function webhookAttempted(outcome: string, seconds: number): void {
  metrics.webhookDeliveries.inc({ outcome });
  metrics.webhookDuration.observe(seconds);
}

/** A task's name as a label: `offline sweep` → `offline_sweep`. */
export function taskLabel(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '_');
}

/** One pass of a background task (lib/runtime/periodic.ts, lib/runtime/wake-loop.ts), named as its logs name it. */
export function taskRan(name: string, seconds: number, ok: boolean): void {
  const task = taskLabel(name);
  metrics.taskRuns.inc({ task, result: ok ? 'ok' : 'error' });
  metrics.taskDuration.observe({ task }, seconds);
}

/** Rows one retention sweep removed, by kind: every kind, zero included, so the series exist from the first sweep on. */
export function retentionSwept(report: Readonly<Record<string, number>>): void {
  for (const [kind, rows] of Object.entries(report)) metrics.retentionRowsRemoved.inc({ kind }, rows);
}

/** A send refused with 429 QUEUE_FULL (lib/messages/queue-room.ts). */
export function queueFullRefused(): void {
  metrics.queueFull.inc();
}
