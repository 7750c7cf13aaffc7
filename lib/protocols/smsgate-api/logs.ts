import type { Executor } from '@/db';
import { type HistoryStatus, historyInRange } from '@/lib/messages/history';
import { iso } from '@/lib/wire';
import { type LogEntryWire, MAX_LOG_ENTRIES } from './schemas';

const PRIORITY: Partial<Record<HistoryStatus, LogEntryWire['priority']>> = {
  failed: 'ERROR',
  expired: 'ERROR',
  rerouted: 'WARN',
  retrying: 'WARN',
};

/**
 * GET /logs: the account's message history (every state a message entered, as GET
 * /api/v1/messages/{id} shows it) as SMSGate's log entries, oldest first; the newest
 * MAX_LOG_ENTRIES of the range. Phones do not upload their own logs to Simgate.
 */
export async function listLogs(
  executor: Executor,
  accountId: string,
  range: { from?: string; to?: string },
): Promise<LogEntryWire[]> {
  const to = range.to ? new Date(range.to) : new Date();
  const from = range.from ? new Date(range.from) : new Date(to.getTime() - 24 * 3600 * 1000);
  const rows = await historyInRange(executor, accountId, { from, to, limit: MAX_LOG_ENTRIES });
  return rows.reverse().map((row) => ({
    id: row.id,
    createdAt: iso(row.at) ?? '',
    module: 'messages',
    priority: PRIORITY[row.status] ?? 'INFO',
    message: `${row.direction === 'inbound' ? 'Inbound message' : 'Message'} ${row.messageId} ${row.status}${row.error ? `: ${row.error}` : ''}`,
    context: {
      messageId: row.messageId,
      state: row.status,
      ...(row.phoneId ? { deviceId: row.phoneId } : {}),
      ...(row.error ? { error: row.error } : {}),
    },
  }));
}
