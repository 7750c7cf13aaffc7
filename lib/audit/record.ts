import type { Executor } from '@/db';
import { type AuditAction, auditLog } from '@/db/schema';
import { type AuditActor, currentActor } from './actor';

export type AuditEntry = {
  accountId: string;
  action: AuditAction;
  /** The resource acted on: a key, webhook, phone or group id. */
  target?: string | number | null;
  /** What changed; never a secret. */
  details?: Record<string, unknown>;
  /** Who acted, when it is not the work's own actor (a sign-in names the account it opened). */
  actor?: AuditActor;
};

/**
 * Writes one audit entry in the caller's transaction, naming the current actor (the request's
 * key or session, and its address): the change and its entry commit together or not at all.
 */
export async function recordAudit(tx: Executor, entry: AuditEntry): Promise<void> {
  const actor = entry.actor ?? currentActor();
  await tx.insert(auditLog).values({
    accountId: entry.accountId,
    action: entry.action,
    actorKind: actor.kind,
    actorLabel: actor.label,
    memberId: actor.memberId ?? null,
    ip: actor.ip,
    target: entry.target === undefined || entry.target === null ? null : String(entry.target),
    details: entry.details ?? {},
  });
}
