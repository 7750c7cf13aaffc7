import { type SQL, sql } from 'drizzle-orm';
import { type Executor, queryRows } from '@/db';
import type { MessageKind, MessageOriginKind, MessagePriority } from '@/db/schema';
import { MESSAGE_COLUMNS, type MessageRow, messageRowOf } from './present';

/**
 * A new outbound message as every producer hands it to the writer: the single send (alone or
 * batched), the bulk and encrypted sends, and the SIM check. Every field is required, so a new
 * column is a compile error in each producer until it says what it writes there.
 */
export type OutboundMessage = {
  id: string;
  accountId: string;
  /** The sending phone and the group it charges; null when the statement chooses them (`chosen` of `insertOutbound`). */
  phoneId: string | null;
  groupId: number | null;
  from: string;
  to: string;
  content: string;
  segments: number;
  encoding: MessageRow['encoding'];
  kind: MessageKind;
  dataPort: number | null;
  sim: number | null;
  fromGroup: number | null;
  priority: MessagePriority;
  callbackWebhookId: string | null;
  requestId: string | null;
  bulkId: string | null;
  encrypted: boolean;
  origin: { kind: MessageOriginKind; ruleId: string | null; inboundMessageId: string; key: string } | null;
  sendAt: Date;
  expiresAt: Date;
  /** null: the statement's time (`now()`). */
  createdAt: Date | null;
};

type Column = {
  /** The column of `messages`. */
  name: string;
  /** Its type in the JSON record set the rows travel in. */
  type: string;
  /** `iso` writes a date as text, once per distinct date of the call (a bulk's thousand rows share theirs). */
  value: (message: OutboundMessage, iso: (date: Date) => string) => string | number | boolean | null;
  /** What is written, from the record's field (`ref`); the field itself by default. */
  written?: (ref: SQL) => SQL;
};

/**
 * The outbound row's columns, each written once. `direction` and `status` are the same for every
 * new outbound message (`outbound`, `queued`); the other columns keep their defaults (attempts,
 * automation, details, error, device_message_id, content_purged_at).
 */
const COLUMNS: Column[] = [
  { name: 'id', type: 'uuid', value: (m) => m.id },
  { name: 'account_id', type: 'uuid', value: (m) => m.accountId },
  { name: 'phone_id', type: 'uuid', value: (m) => m.phoneId },
  { name: 'group_id', type: 'int', value: (m) => m.groupId },
  { name: 'from', type: 'text', value: (m) => m.from },
  { name: 'to', type: 'text', value: (m) => m.to },
  { name: 'content', type: 'text', value: (m) => m.content },
  { name: 'segments', type: 'int', value: (m) => m.segments },
  { name: 'encoding', type: 'text', value: (m) => m.encoding },
  { name: 'kind', type: 'text', value: (m) => m.kind },
  { name: 'data_port', type: 'int', value: (m) => m.dataPort },
  { name: 'sim', type: 'smallint', value: (m) => m.sim },
  { name: 'from_group', type: 'int', value: (m) => m.fromGroup },
  { name: 'priority', type: 'text', value: (m) => m.priority },
  { name: 'callback_webhook_id', type: 'uuid', value: (m) => m.callbackWebhookId },
  { name: 'request_id', type: 'text', value: (m) => m.requestId },
  { name: 'bulk_id', type: 'uuid', value: (m) => m.bulkId },
  { name: 'encrypted', type: 'boolean', value: (m) => m.encrypted },
  { name: 'origin_kind', type: 'text', value: (m) => m.origin?.kind ?? null },
  { name: 'origin_rule_id', type: 'uuid', value: (m) => m.origin?.ruleId ?? null },
  { name: 'origin_message_id', type: 'uuid', value: (m) => m.origin?.inboundMessageId ?? null },
  { name: 'origin_key', type: 'text', value: (m) => m.origin?.key ?? null },
  { name: 'send_at', type: 'timestamptz', value: (m, iso) => iso(m.sendAt) },
  { name: 'expires_at', type: 'timestamptz', value: (m, iso) => iso(m.expiresAt) },
  {
    name: 'created_at',
    type: 'timestamptz',
    value: (m, iso) => (m.createdAt ? iso(m.createdAt) : null),
    written: (ref) => sql`coalesce(${ref}, now())`,
  },
  {
    name: 'updated_at',
    type: 'timestamptz',
    value: (m, iso) => (m.createdAt ? iso(m.createdAt) : null),
    written: (ref) => sql`coalesce(${ref}, now())`,
  },
];

/** The columns every new outbound row is written with (besides `direction` and `status`). */
export const OUTBOUND_COLUMN_NAMES: readonly string[] = COLUMNS.map((column) => column.name);

/**
 * Fields a statement adds to each record for its own use (the batch's `ord`, `country`): each
 * record's value by its index. Their types go to `outboundRecordset`.
 */
export type ExtraFields = Record<string, (index: number) => string | number | null>;

/**
 * `messages` as a record set named `alias`, one record per message with every outbound column:
 * one JSON parameter, so the statement's text is the same whatever the count.
 */
export function outboundRecords(messages: OutboundMessage[], alias: string): SQL {
  return outboundRecordset(sql`${outboundRecordsJson(messages)}`, alias);
}

/** The JSON parameter of `outboundRecordset`: one record per message, with `extra`'s fields. */
export function outboundRecordsJson(messages: OutboundMessage[], extra: ExtraFields = {}): string {
  const extras = Object.entries(extra);
  const texts = new Map<Date, string>();
  const iso = (date: Date) => {
    let text = texts.get(date);
    if (text === undefined) {
      text = date.toISOString();
      texts.set(date, text);
    }
    return text;
  };
  const records = messages.map((message, index) => {
    const record: Record<string, unknown> = {};
    for (const [name, value] of extras) record[name] = value(index);
    for (const column of COLUMNS) record[column.name] = column.value(message, iso);
    return record;
  });
  return JSON.stringify(records);
}

/**
 * The records of `json` (`outboundRecordsJson`) as a record set named `alias`, with the extra
 * fields' types (`{ ord: 'int' }`) before the outbound columns.
 */
export function outboundRecordset(json: SQL, alias: string, extraTypes: Record<string, string> = {}): SQL {
  const fields = [
    ...Object.entries(extraTypes).map(([name, type]) => sql`${sql.identifier(name)} ${sql.raw(type)}`),
    ...COLUMNS.map((column) => sql`${sql.identifier(column.name)} ${sql.raw(column.type)}`),
  ];
  return sql`jsonb_to_recordset(${json}::jsonb) as ${sql.identifier(alias)}(${sql.join(fields, sql`, `)})`;
}

/**
 * The one INSERT of outbound messages: every column of `COLUMNS` from the records named `alias`
 * in `source` (a FROM clause, with its joins, WHERE and ORDER BY), but the sender and its group
 * from `chosen` when the statement picks them. Returns the message's columns by name.
 */
export function insertOutbound(options: { source: SQL; alias: string; chosen?: { phoneId: SQL; groupId: SQL } }): SQL {
  const { source, alias, chosen } = options;
  const written = COLUMNS.map((column) => {
    if (chosen && column.name === 'phone_id') return chosen.phoneId;
    if (chosen && column.name === 'group_id') return chosen.groupId;
    const ref = sql`${sql.identifier(alias)}.${sql.identifier(column.name)}`;
    return column.written ? column.written(ref) : ref;
  });
  const names = COLUMNS.map((column) => sql.identifier(column.name));
  return sql`insert into messages (direction, status, ${sql.join(names, sql`, `)})
    select 'outbound', 'queued', ${sql.join(written, sql`, `)}
    from ${source}
    returning ${MESSAGE_COLUMNS}`;
}

/** Writes `messages` (with their sender and group known) and returns their rows. */
export async function writeOutboundMessages(executor: Executor, messages: OutboundMessage[]): Promise<MessageRow[]> {
  const rows = await queryRows<Record<string, unknown>>(
    executor,
    insertOutbound({ source: outboundRecords(messages, 'm'), alias: 'm' }),
  );
  return rows.map(messageRowOf);
}
