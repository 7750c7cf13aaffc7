import type { SQL } from 'drizzle-orm';
import { type AutomationEntry, type MessageDetails, type MessageOriginKind, messages } from '@/db/schema';
import { columnsOf, rowOf } from '@/lib/raw-rows';
import { iso } from '@/lib/wire';

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
  status: string;
  at: Date;
  error: string | null;
  fromPhone?: string | null;
  toPhone?: string | null;
};

export type MessageWire = {
  id: string;
  kind: MessageRow['kind'];
  direction: MessageRow['direction'];
  from: string;
  to: string;
  content: string;
  status: MessageRow['status'];
  segments: number;
  encoding: MessageRow['encoding'];
  request_id: string | null;
  bulk_id: string | null;
  sim: number | null;
  from_group: number | null;
  priority: MessageRow['priority'];
  attempts: number;
  send_at: string | null;
  expires_at: string | null;
  error: string | null;
  /** An automatic message's cause (lib/automation); null for every other. */
  origin: { kind: MessageOriginKind; rule_id: string | null; inbound_message_id: string } | null;
  /** An inbound message: what automation did about it; null when nothing ran (and for outbound messages). */
  automation: AutomationEntry[] | null;
  /** A data SMS: its port; null for every other. */
  data_port: number | null;
  /** An inbound data SMS or MMS: what the SMSGate app reported about it; null for every other. */
  details: MessageDetails | null;
  /** When retention removed the content (then `content` is its SHA-256 in hex, or empty); null while it is kept. */
  content_purged_at: string | null;
  /** `content` and the counterpart number are the SMSGate app's ciphertext (lib/messages/encrypted.ts). */
  encrypted: boolean;
  created_at: string | null;
  updated_at: string | null;
  history?: { status: string; at: string | null; error?: string; from?: string; to?: string }[];
};

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
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  };
  if (history) {
    wire.history = history.map((entry) => ({
      status: entry.status,
      at: iso(entry.at),
      ...(entry.error ? { error: entry.error } : {}),
      ...(entry.fromPhone ? { from: entry.fromPhone } : {}),
      ...(entry.toPhone ? { to: entry.toPhone } : {}),
    }));
  }
  return wire;
}

/** A message as its own phone is handed it: the text to send, SIM check codes included. */
export function presentForDevice(row: MessageRow): MessageWire {
  return { ...presentMessage(row), content: row.content };
}
