import { and, eq, getTableColumns, type SQL } from 'drizzle-orm';
import type { Executor } from '@/db';
import { type AuditAction, auditLog, members } from '@/db/schema';
import { keysetPage, type Page, type PageQuery, toPage } from '@/lib/pagination';
import { iso } from '@/lib/wire';
import type { z } from '@/lib/zod';
import type { auditEntrySchema } from './schemas';

type AuditRow = typeof auditLog.$inferSelect & { memberEmail: string | null };

function presentEntry(row: AuditRow): z.infer<typeof auditEntrySchema> {
  return {
    id: row.id,
    action: row.action,
    actor: { kind: row.actorKind, label: row.actorLabel },
    // A member who has left has no row: the entry's label kept their email.
    member: row.memberId ? { id: row.memberId, email: row.memberEmail ?? row.actorLabel } : null,
    ip: row.ip,
    target: row.target,
    details: row.details,
    created_at: iso(row.createdAt) ?? '',
  };
}

/** The account's audit log, newest first, keyset-paginated, optionally one action or one member only. */
export async function listAuditLog(
  executor: Executor,
  accountId: string,
  query: PageQuery & { action?: AuditAction; member_id?: string },
): Promise<Page<z.infer<typeof auditEntrySchema>>> {
  const keyset = keysetPage(query, { createdAt: auditLog.createdAt, id: auditLog.id, idType: 'uuid' });
  const conditions: SQL[] = [eq(auditLog.accountId, accountId)];
  if (query.action) conditions.push(eq(auditLog.action, query.action));
  if (query.member_id) conditions.push(eq(auditLog.memberId, query.member_id));
  const rows = await executor
    .select({ ...getTableColumns(auditLog), memberEmail: members.email })
    .from(auditLog)
    .leftJoin(members, and(eq(members.id, auditLog.memberId), eq(members.accountId, auditLog.accountId)))
    .where(and(...conditions, keyset.after))
    .orderBy(...keyset.orderBy)
    .limit(keyset.limit);
  return toPage(rows, query.limit, presentEntry);
}
