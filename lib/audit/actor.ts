import { AsyncLocalStorage } from 'node:async_hooks';
import type { AuditActorKind } from '@/db/schema';

/** Who is acting, and from which address: set once per request (or CLI run) around the work. */
export type AuditActor = { kind: AuditActorKind; label: string | null; ip: string | null };

const ANONYMOUS: AuditActor = { kind: 'anonymous', label: null, ip: null };
const storage = new AsyncLocalStorage<AuditActor>();

/** Runs `work` with `actor` as the one every audit entry written inside it names. */
export function actingAs<T>(actor: AuditActor, work: () => T): T {
  return storage.run(actor, work);
}

/** The actor of the work in progress; anonymous outside any (e.g. a sweep). */
export function currentActor(): AuditActor {
  return storage.getStore() ?? ANONYMOUS;
}

/** The operator CLI (`npm run ops`): it acts on any account, from the server's own shell. */
export const OPERATOR: AuditActor = { kind: 'operator', label: 'npm run ops', ip: null };
