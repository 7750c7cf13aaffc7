import type { AuditActorKind } from '@/db/schema';
import { scoped, withScoped } from '@/db/scope';

/**
 * Who is acting, and from which address: set once per request (or CLI run) around the work. `memberId`:
 * the member behind a dashboard session (the label is then their email).
 */
export type AuditActor = { kind: AuditActorKind; label: string | null; ip: string | null; memberId?: string | null };

const ANONYMOUS: AuditActor = { kind: 'anonymous', label: null, ip: null };
// Shared by every bundle Next evaluates lib/audit in, as the deadline's key (db/scope.ts).
const ACTOR = Symbol.for('simgate.audit.actor');

/**
 * Runs `work` with the actor every audit entry written inside it names. `actor` is asked once, when
 * the first entry is written: most requests write none (a send, a heartbeat), and working out the
 * client's address and the key's prefix for each of them was work thrown away.
 */
export function actingAs<T>(actor: () => AuditActor, work: () => T): T {
  let known: AuditActor | undefined;
  return withScoped(
    ACTOR,
    () => {
      known ??= actor();
      return known;
    },
    work,
  );
}

/** The actor of the work in progress; anonymous outside any (e.g. a sweep). */
export function currentActor(): AuditActor {
  return scoped<() => AuditActor>(ACTOR)?.() ?? ANONYMOUS;
}

/** The operator CLI (`npm run ops`): it acts on any account, from the server's own shell. */
export const OPERATOR: AuditActor = { kind: 'operator', label: 'npm run ops', ip: null };
