/**
 * A table of implementations that the adapters (lib/protocols) fill and the domain reads, so the
 * domain names what it needs without importing the adapters (docs/architecture.md, "Layers").
 * `lib/protocols/register.ts` fills every registry; each entry point imports it.
 *
 * The table lives on `globalThis`: Next evaluates a module once per route bundle, and a table kept in
 * module scope would be empty in every bundle but the one that filled it. On globalThis, the
 * registration the host runs at start (lib/server/start.ts) serves every bundle of the process.
 */
export type Registry<K extends string, V> = {
  /** Sets `key`'s implementation; registering again replaces it (each bundle may register its own copy). */
  register(key: K, value: V): void;
  /** The implementation of `key`; throws, naming the registry, when no adapter registered one. */
  get(key: K): V;
  /** The implementation of `key`, or undefined. */
  find(key: K): V | undefined;
  /** The keys registered so far. */
  keys(): K[];
};

export function registry<K extends string, V>(name: string): Registry<K, V> {
  const slot = Symbol.for(`simgate.registry.${name}`);
  const store = globalThis as unknown as Record<symbol, Map<K, V> | undefined>;
  const table = (): Map<K, V> => {
    let found = store[slot];
    if (!found) {
      found = new Map();
      store[slot] = found;
    }
    return found;
  };
  return {
    register: (key, value) => {
      table().set(key, value);
    },
    get: (key) => {
      const value = table().get(key);
      if (value === undefined) {
        throw new Error(
          `No ${name} is registered for "${key}": import '@/lib/protocols/register' in this entry point.`,
        );
      }
      return value;
    },
    find: (key) => table().get(key),
    keys: () => [...table().keys()],
  };
}
