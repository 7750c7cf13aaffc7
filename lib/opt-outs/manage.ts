import { and, eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { accounts, type OptOutSource, optOuts } from '@/db/schema';
import { recordAudit } from '@/lib/audit/record';
import { notFound } from '@/lib/errors';
import { emitEvent } from '@/lib/events/emit';
import { keysetPage, type Page, type PageQuery, toPage } from '@/lib/pagination';
import { withTransaction } from '@/lib/transactions';
import { iso } from '@/lib/wire';
import { OPT_OUT_WORDS, type OptOutWire } from './schemas';

type OptOutRow = typeof optOuts.$inferSelect;

function presentOptOut(row: OptOutRow): OptOutWire {
  return { phone: row.phone, source: row.source, created_at: iso(row.createdAt) ?? '' };
}

export async function listOptOuts(executor: Executor, accountId: string, query: PageQuery): Promise<Page<OptOutWire>> {
  const keyset = keysetPage(query, { createdAt: optOuts.createdAt, id: optOuts.id, idType: 'integer' });
  const rows = await executor
    .select()
    .from(optOuts)
    .where(and(eq(optOuts.accountId, accountId), keyset.after))
    .orderBy(...keyset.orderBy)
    .limit(keyset.limit);
  return toPage(rows, query.limit, presentOptOut);
}

export type OptChange = { accountId: string; phone: string; source: OptOutSource; accountPhone: string | null };

/**
 * Records the number as opted out of the account; `recipient.opted_out` only when it was not
 * already (the unique index decides, so two STOPs at once record and announce it once).
 */
export async function optOut(tx: Executor, change: OptChange): Promise<{ created: boolean; row: OptOutRow }> {
  const [created] = await tx
    .insert(optOuts)
    .values({ accountId: change.accountId, phone: change.phone, source: change.source })
    .onConflictDoNothing()
    .returning();
  if (created) {
    await emitOptEvent(tx, 'recipient.opted_out', change, created.createdAt);
    return { created: true, row: created };
  }
  const [existing] = await tx
    .select()
    .from(optOuts)
    .where(and(eq(optOuts.accountId, change.accountId), eq(optOuts.phone, change.phone)));
  if (!existing) throw new Error('optOut: conflicting row not found');
  return { created: false, row: existing };
}

/** Removes the opt-out; `recipient.opted_in` only when there was one. */
export async function optIn(tx: Executor, change: OptChange): Promise<boolean> {
  const removed = await tx
    .delete(optOuts)
    .where(and(eq(optOuts.accountId, change.accountId), eq(optOuts.phone, change.phone)))
    .returning({ id: optOuts.id });
  if (removed.length === 0) return false;
  await emitOptEvent(tx, 'recipient.opted_in', change, new Date());
  return true;
}

async function emitOptEvent(
  tx: Executor,
  type: 'recipient.opted_out' | 'recipient.opted_in',
  change: OptChange,
  at: Date,
): Promise<void> {
  await emitEvent(tx, {
    accountId: change.accountId,
    type,
    phone: change.accountPhone,
    data: { phone: change.phone, account_phone: change.accountPhone, source: change.source, at: iso(at) },
  });
}

/** POST /api/v1/opt-outs: 201 with the new opt-out, 200 with the existing one. */
export async function addOptOut(executor: Executor, accountId: string, phone: string) {
  return withTransaction(executor, async (tx) => {
    const { created, row } = await optOut(tx, { accountId, phone, source: 'manual', accountPhone: null });
    if (created) await recordAudit(tx, { accountId, action: 'opt_out.added', target: phone, details: { phone } });
    return { created, optOut: presentOptOut(row) };
  });
}

/** DELETE /api/v1/opt-outs/{phone}: 404 when the number is not opted out of this account. */
export async function removeOptOut(executor: Executor, accountId: string, phone: string): Promise<void> {
  const removed = await withTransaction(executor, async (tx) => {
    const done = await optIn(tx, { accountId, phone, source: 'manual', accountPhone: null });
    if (done) await recordAudit(tx, { accountId, action: 'opt_out.removed', target: phone, details: { phone } });
    return done;
  });
  if (!removed) throw notFound('Opt-out');
}

export async function getOptOutSettings(executor: Executor, accountId: string) {
  const [account] = await executor
    .select({ reply: accounts.optOutReply })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  return { confirmation_reply: account?.reply ?? null, ...OPT_OUT_WORDS };
}

export async function updateOptOutSettings(
  executor: Executor,
  accountId: string,
  body: { confirmation_reply: string | null },
) {
  await executor.update(accounts).set({ optOutReply: body.confirmation_reply }).where(eq(accounts.id, accountId));
  return getOptOutSettings(executor, accountId);
}
