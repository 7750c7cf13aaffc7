import { and, eq, type SQL } from 'drizzle-orm';
import type { Executor } from '@/db';
import { type AuditAction, auditLog } from '@/db/schema';
import { keysetPage, type Page, type PageQuery, toPage } from '@/lib/pagination';
import { iso } from '@/lib/wire';
import type { z } from '@/lib/zod';
import type { auditEntrySchema } from './schemas';

type AuditRow = typeof auditLog.$inferSelect;

function presentEntry(row: AuditRow): z.infer<typeof auditEntrySchema> {
  return {
    id: row.id,
    action: row.action,
    actor: { kind: row.actorKind, label: row.actorLabel },
    ip: row.ip,
    target: row.target,
    details: row.details,
    created_at: iso(row.createdAt) ?? '',
  };
}

/** The account's audit log, newest first, keyset-paginated, optionally one action only. */
export async function listAuditLog(
  executor: Executor,
  accountId: string,
  query: PageQuery & { action?: AuditAction },
): Promise<Page<z.infer<typeof auditEntrySchema>>> {
  const keyset = keysetPage(query, { createdAt: auditLog.createdAt, id: auditLog.id, idType: 'uuid' });
  const conditions: SQL[] = [eq(auditLog.accountId, accountId)];
  if (query.action) conditions.push(eq(auditLog.action, query.action));
  const rows = await executor
    .select()
    .from(auditLog)
    .where(and(...conditions, keyset.after))
    .orderBy(...keyset.orderBy)
    .limit(keyset.limit);
  return toPage(rows, query.limit, presentEntry);
}
