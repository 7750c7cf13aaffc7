import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What a request's work carries across its awaits, each under a key of its own: its deadline for the
 * database (db/deadline.ts) and who acts (lib/audit/actor.ts). One AsyncLocalStorage holds them all,
 * one per process (Next evaluates db/ and lib/ in several bundles, and a module's own storage would be
 * one per bundle): under Node 20 every storage in use runs a hook on every promise made and stores a
 * property on it, so each storage more costs every await of every request, and a long-poll's heap.
 */
type Scope = Readonly<Record<symbol, unknown>>;

const KEY = Symbol.for('simgate.db.scope');
const holder = globalThis as { [KEY]?: AsyncLocalStorage<Scope> };
holder[KEY] ??= new AsyncLocalStorage<Scope>();
const scopes = holder[KEY];

/** The value under `key` in the work running now, if any. */
export function scoped<T>(key: symbol): T | undefined {
  return scopes.getStore()?.[key] as T | undefined;
}

/** Runs `work` with `value` under `key` (undefined: none), the other keys as they are. */
export function withScoped<T>(key: symbol, value: unknown, work: () => T): T {
  return scopes.run({ ...scopes.getStore(), [key]: value }, work);
}
