import { and, eq, type SQL, sql } from 'drizzle-orm';
import { type Executor, queryRows } from '@/db';
import { accountByAccountWhenDistributed } from '@/db/distributed';
import { type SmppDeliveryKind, type SmppDeliveryPayload, smppDeliveries } from '@/db/schema';
import { notifyOnCommit } from '@/lib/notify/channel';
import { SMPP_DELIVERY_TTL_MS } from './limits';

/** Notified (on commit) when deliveries are queued: the instances holding receiver binds send them. */
export const SMPP_DELIVERIES_CHANNEL = 'simgate_smpp_deliveries';

/**
 * Which message states make a receipt, and which receipt requests (registered_delivery, SMPP's
 * bits) want it: `final` a final outcome (bits 0-1 = 01), `failure` a failed one (01 or 10),
 * `intermediate` a step on the way (bit 4).
 */
const RECEIPT_OF: Record<string, 'success' | 'failure' | 'intermediate'> = {
  'message.sent': 'intermediate',
  'message.delivered': 'success',
  'message.failed': 'failure',
  'message.expired': 'failure',
  'message.cancelled': 'failure',
};

const WANTS = {
  success: sql`(s.registered_delivery & 3) = 1`,
  failure: sql`(s.registered_delivery & 3) in (1, 2)`,
  intermediate: sql`(s.registered_delivery & 16) <> 0`,
};

type MessageEvent = { accountId: string; type: string; data: Record<string, unknown> };

function payloadOf(data: Record<string, unknown>): SmppDeliveryPayload {
  const text = (key: string) => (typeof data[key] === 'string' ? (data[key] as string) : '');
  return {
    messageId: text('id'),
    from: text('from'),
    to: text('to'),
    content: text('content'),
    status: text('status'),
    error: typeof data.error === 'string' ? data.error : null,
    submittedAt: text('created_at'),
    doneAt: text('updated_at'),
  };
}

/**
 * What an event means for the account's SMPP receiver binds, as an INSERT that the event's own
 * statement runs (lib/events/emit.ts): a receipt when the message was submitted over SMPP asking for
 * one of this kind, and every inbound text message when the account has an SMPP login. undefined for
 * every other event, which then costs nothing here.
 */
export function smppDeliveriesOf(event: MessageEvent): SQL | undefined {
  const expiresAt = new Date(Date.now() + SMPP_DELIVERY_TTL_MS).toISOString();
  const payload = JSON.stringify(payloadOf(event.data));
  const receipt = RECEIPT_OF[event.type];
  if (receipt && event.data.direction === 'outbound' && typeof event.data.id === 'string') {
    return sql`
      insert into smpp_deliveries (account_id, kind, system_id, payload, expires_at)
      select s.account_id, 'receipt', s.system_id, ${payload}::jsonb, ${expiresAt}::timestamptz
      from smpp_submits s
      where s.account_id = ${event.accountId} and s.message_id = ${event.data.id}::uuid and ${WANTS[receipt]}
      returning 1
    `;
  }
  if (event.type === 'message.received' && event.data.kind === 'message') {
    return sql`
      insert into smpp_deliveries (account_id, kind, payload, expires_at)
      select ${event.accountId}::uuid, 'mo', ${payload}::jsonb, ${expiresAt}::timestamptz
      where exists (select 1 from smpp_credentials c where c.account_id = ${event.accountId})
      returning 1
    `;
  }
  return undefined;
}

/** Call when smppDeliveriesOf's statement queued rows: the instances with receiver binds send them after commit. */
export function smppDeliveriesQueued(tx: Executor): Promise<void> {
  return notifyOnCommit(tx, SMPP_DELIVERIES_CHANNEL);
}

/** A Postgres array literal of uuids or system_ids (neither holds a quote or a backslash). */
function arrayLiteral(values: readonly string[]): string {
  return `{${values.map((value) => `"${value}"`).join(',')}}`;
}

export type SmppDelivery = {
  id: string;
  accountId: string;
  kind: SmppDeliveryKind;
  systemId: string | null;
  payload: SmppDeliveryPayload;
  attempts: number;
};

/** How long an instance holds a claimed delivery before another may send it again. */
const CLAIM_MS = 30_000;

/**
 * Claims the due deliveries of the accounts and logins with receiver binds on this instance (a
 * receipt goes to the login that submitted its message, an inbound message to any), oldest first;
 * another instance skips what this one holds. Expired ones are deleted on the way. On a Citus
 * database the accounts are claimed one by one, each statement with its `account_id` fixed.
 */
export async function claimSmppDeliveries(
  executor: Executor,
  bound: { accountIds: readonly string[]; systemIds: readonly string[] },
  limit: number,
): Promise<SmppDelivery[]> {
  if (bound.accountIds.length === 0) return [];
  const systemIds = arrayLiteral(bound.systemIds);
  const claimed: SmppDelivery[] = [];
  await accountByAccountWhenDistributed(
    executor,
    async () => bound.accountIds,
    async (accountId, room) => {
      const accounts = accountId
        ? sql`account_id = ${accountId}::uuid`
        : sql`account_id = any(${arrayLiteral(bound.accountIds)}::uuid[])`;
      await executor.execute(sql`delete from smpp_deliveries where ${accounts} and expires_at < now()`);
      const rows = await queryRows<{
        id: string;
        account_id: string;
        kind: SmppDeliveryKind;
        system_id: string | null;
        payload: SmppDeliveryPayload;
        attempts: number;
      }>(
        executor,
        sql`
          update smpp_deliveries d
          set locked_until = now() + ${`${CLAIM_MS} milliseconds`}::interval, attempts = d.attempts + 1
          from (
            select id, account_id from smpp_deliveries
            where ${accounts}
              and (system_id is null or system_id = any(${systemIds}::text[]))
              and next_attempt_at <= now()
              and (locked_until is null or locked_until < now())
            order by created_at
            limit ${Math.min(room, limit)}
            for update skip locked
          ) due
          where d.account_id = due.account_id and d.id = due.id
          returning d.id, d.account_id, d.kind, d.system_id, d.payload, d.attempts
        `,
      );
      for (const row of rows) {
        claimed.push({
          id: row.id,
          accountId: row.account_id,
          kind: row.kind,
          systemId: row.system_id,
          payload: typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload,
          attempts: row.attempts,
        });
      }
      return rows.length;
    },
    limit,
  );
  return claimed;
}

/** Acknowledged by a receiver bind: done. */
export async function ackSmppDelivery(executor: Executor, delivery: Pick<SmppDelivery, 'id' | 'accountId'>) {
  await executor
    .delete(smppDeliveries)
    .where(and(eq(smppDeliveries.accountId, delivery.accountId), eq(smppDeliveries.id, delivery.id)));
}

/**
 * Not delivered (refused, timed out, no bind took it): due again after a wait that grows with the
 * attempts (10 s, 20 s, … up to 10 min), or at once when `now` (a bind for it has just arrived).
 */
export async function releaseSmppDeliveries(
  executor: Executor,
  deliveries: readonly Pick<SmppDelivery, 'id' | 'accountId' | 'attempts'>[],
  options: { backoff: boolean },
): Promise<void> {
  for (const delivery of deliveries) {
    const waitMs = options.backoff ? Math.min(600_000, 10_000 * 2 ** Math.max(0, delivery.attempts - 1)) : 0;
    await executor
      .update(smppDeliveries)
      .set({ lockedUntil: null, nextAttemptAt: new Date(Date.now() + waitMs) })
      .where(and(eq(smppDeliveries.accountId, delivery.accountId), eq(smppDeliveries.id, delivery.id)));
  }
}
