import { sql } from 'drizzle-orm';
import { type Executor, queryRows } from '@/db';
import { type EventType, events } from '@/db/schema';
import { contactJsonSql } from '@/lib/contacts/names';
import { smppDeliveriesOf, smppDeliveriesQueued } from '@/lib/smpp/deliveries';

/** Channel that wakes webhook workers: NOTIFY goes out when (and only if) the emitting transaction commits. */
export const WEBHOOK_DELIVERIES_CHANNEL = 'simgate_webhook_deliveries';

export type EmittedEvent = {
  accountId: string;
  type: EventType;
  /** E.164 number of the phone the event is about (webhook phone filters match on it). */
  phone?: string | null;
  data: Record<string, unknown>;
  /** A message's status callback target (its status_callback_url), which gets the event if it takes its type. */
  callbackWebhookId?: string | null;
  /** A message event's counterpart number: the payload gains `contact`, its contact (or null), read by the insert. */
  contactNumber?: string;
};

/**
 * Inserts the event, its payload `data` with the counterpart's contact for a message event, and
 * answers its id. An INSERT … SELECT: Citus refuses a subquery in VALUES.
 */
async function insertEvent(tx: Executor, event: EmittedEvent): Promise<string | undefined> {
  const phone = event.phone ?? null;
  if (event.contactNumber === undefined) {
    const [row] = await tx
      .insert(events)
      .values({ accountId: event.accountId, type: event.type, phone, payload: event.data })
      .returning({ id: events.id });
    return row?.id;
  }
  const contact = contactJsonSql(sql`${event.accountId}::uuid`, sql`${event.contactNumber}::text`);
  const [row] = await queryRows<{ id: string }>(
    tx,
    sql`insert into events (account_id, type, phone, payload)
      select ${event.accountId}::uuid, ${event.type}, ${phone}::text,
        ${JSON.stringify(event.data)}::jsonb || jsonb_build_object('contact', ${contact})
      returning id`,
  );
  return row?.id;
}

/**
 * Records an event in the caller's transaction and queues one delivery per matching enabled
 * webhook (subscribed to the type, and whose phone filters are empty or name the phone), so an
 * event is never lost between the change and its webhooks.
 */
export async function emitEvent(tx: Executor, event: EmittedEvent): Promise<string> {
  const id = await insertEvent(tx, event);
  if (!id) throw new Error('emitEvent: insert returned no row');
  const hooks = sql`
    insert into webhook_deliveries (account_id, webhook_id, event_id, event_type)
    select w.account_id, w.id, ${id}, ${event.type}
    from webhooks w
    where w.account_id = ${event.accountId}
      and w.enabled
      and ${event.type} = any(w.events)
      and (
        (w.kind in ('endpoint', 'smsgate', 'twilio')
          and (cardinality(w.phone_filters) = 0 or ${event.phone ?? null}::text = any(w.phone_filters)))
        or w.id = ${event.callbackWebhookId ?? null}::uuid
      )
    returning id
  `;
  // A message event may also owe the account's SMPP receiver binds a receipt or an inbound message
  // (lib/smpp/deliveries.ts): queued by the same statement.
  const smpp = smppDeliveriesOf(event);
  if (!smpp) {
    const queued = await queryRows<{ id: string }>(tx, hooks);
    if (queued.length > 0) await notifyDeliveriesQueued(tx);
    return id;
  }
  const [queued] = await queryRows<{ hooks: number; smpp: number }>(
    tx,
    sql`with hooks as (${hooks}), smpp as (${smpp})
      select (select count(*) from hooks)::int as hooks, (select count(*) from smpp)::int as smpp`,
  );
  if (Number(queued?.hooks ?? 0) > 0) await notifyDeliveriesQueued(tx);
  if (Number(queued?.smpp ?? 0) > 0) await smppDeliveriesQueued(tx);
  return id;
}

export async function notifyDeliveriesQueued(tx: Executor): Promise<void> {
  await tx.execute(sql`select pg_notify(${WEBHOOK_DELIVERIES_CHANNEL}, '')`);
}
