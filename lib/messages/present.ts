import type { SQL } from 'drizzle-orm';
import { type HistoryStatus, messages } from '@/db/schema';
import { columnsOf, rowOf } from '@/lib/raw-rows';
import { iso } from '@/lib/wire';
import type { z } from '@/lib/zod';
import type { messageSchema } from './schemas';

export type MessageRow = typeof messages.$inferSelect;

/**
 * The message's columns a raw statement returns (`returning ${MESSAGE_COLUMNS}`), or selects from a
 * CTE or alias named `qualifier`: by name, never `*` (lib/raw-rows.ts says why).
 */
export const MESSAGE_COLUMNS = columnsOf(messages);
export function messageColumns(qualifier: string): SQL {
  return columnsOf(messages, qualifier);
}

/** A message's raw columns (a raw statement's `MESSAGE_COLUMNS`), as drizzle would have mapped them. */
export function messageRowOf(raw: Record<string, unknown>): MessageRow {
  return rowOf(messages, raw);
}
export type HistoryEntry = {
  status: HistoryStatus;
  at: Date;
  error: string | null;
  fromPhone?: string | null;
  toPhone?: string | null;
};

/** A message as the API shows it: its schema (`messageSchema`) is its one definition. */
export type MessageWire = z.output<typeof messageSchema>;

/** What an account is shown of a SIM check's text: the code would let anyone skip the proof. */
export const SIM_CHECK_SHOWN_CONTENT = 'Simgate SIM check (the code is shown only on the phone)';

/**
 * The message as the wire shows it to the account; read by id it carries its state history.
 * The phone that sends a message reads its real text through `presentForDevice`.
 */
export function presentMessage(row: MessageRow, history?: HistoryEntry[]): MessageWire {
  const wire: MessageWire = {
    id: row.id,
    kind: row.kind,
    direction: row.direction,
    from: row.from,
    to: row.to,
    content: row.kind === 'sim_check' ? SIM_CHECK_SHOWN_CONTENT : row.content,
    status: row.status,
    segments: row.segments,
    encoding: row.encoding,
    request_id: row.requestId,
    bulk_id: row.bulkId,
    sim: row.sim,
    from_group: row.fromGroup,
    priority: row.priority,
    held_reason: row.status === 'queued' ? row.heldReason : null,
    attempts: row.attempts,
    send_at: iso(row.sendAt),
    expires_at: iso(row.expiresAt),
    error: row.error,
    origin:
      row.originKind && row.originMessageId
        ? { kind: row.originKind, rule_id: row.originRuleId, inbound_message_id: row.originMessageId }
        : null,
    automation: row.automation ?? null,
    data_port: row.dataPort ?? null,
    details: row.details ?? null,
    content_purged_at: iso(row.contentPurgedAt),
    encrypted: row.encrypted,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
  if (history) {
    wire.history = history.map((entry) => ({
      status: entry.status,
      at: entry.at.toISOString(),
      ...(entry.error ? { error: entry.error } : {}),
      ...(entry.fromPhone ? { from: entry.fromPhone } : {}),
      ...(entry.toPhone ? { to: entry.toPhone } : {}),
    }));
  }
  return wire;
}

/** The other party of a message: the recipient of an outbound one, the sender of an inbound one. */
export function counterpartOf(row: Pick<MessageRow, 'direction' | 'from' | 'to'>): string {
  return row.direction === 'outbound' ? row.to : row.from;
}

/** A message as its own phone is handed it: the text to send, SIM check codes included. */
export function presentForDevice(row: MessageRow): MessageWire {
  return { ...presentMessage(row), content: row.content };
}
