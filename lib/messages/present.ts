import type { messages } from '@/db/schema';
import { iso } from '@/lib/wire';

export type MessageRow = typeof messages.$inferSelect;
export type HistoryEntry = { status: string; at: Date; error: string | null };

export type MessageWire = {
  id: string;
  direction: MessageRow['direction'];
  from: string;
  to: string;
  content: string;
  status: MessageRow['status'];
  segments: number;
  encoding: MessageRow['encoding'];
  request_id: string | null;
  bulk_id: string | null;
  send_at: string | null;
  expires_at: string | null;
  error: string | null;
  created_at: string | null;
  updated_at: string | null;
  history?: { status: string; at: string | null; error?: string }[];
};

/** The message as the wire shows it; read by id it carries its state history. */
export function presentMessage(row: MessageRow, history?: HistoryEntry[]): MessageWire {
  const wire: MessageWire = {
    id: row.id,
    direction: row.direction,
    from: row.from,
    to: row.to,
    content: row.content,
    status: row.status,
    segments: row.segments,
    encoding: row.encoding,
    request_id: row.requestId,
    bulk_id: row.bulkId,
    send_at: iso(row.sendAt),
    expires_at: iso(row.expiresAt),
    error: row.error,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
  if (history) {
    wire.history = history.map((entry) => ({
      status: entry.status,
      at: iso(entry.at),
      ...(entry.error ? { error: entry.error } : {}),
    }));
  }
  return wire;
}
