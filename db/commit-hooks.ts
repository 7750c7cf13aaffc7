/**
 * Work to do once a transaction has committed (a metric counted, never a write): `afterCommit`
 * queues it on the transaction, and the outermost `db.transaction` runs the queue after its
 * commit. A transaction that rolls back (or a savepoint that does) drops its queue. Outside a
 * transaction the statement has committed already, so the work runs at once.
 */

// On the transaction object itself (Symbol.for): Next evaluates this module in several bundles.
const HOOKS = Symbol.for('simgate.db.commitHooks');

type Hooks = Array<() => void>;
type Transactional = { transaction: (fn: (tx: never) => Promise<unknown>, config?: unknown) => Promise<unknown> };

/** Makes `db.transaction`, and every transaction's nested ones, carry a queue of after-commit work. */
export function runningCommitHooks(db: object): void {
  carryingHooks(db as Transactional, undefined);
}

function carryingHooks(target: Transactional, parent: Hooks | undefined): void {
  const transaction = target.transaction.bind(target);
  target.transaction = async (fn, config) => {
    const hooks: Hooks = [];
    const result = await transaction((tx: never) => {
      Object.defineProperty(tx, HOOKS, { value: hooks });
      carryingHooks(tx as Transactional, hooks);
      return fn(tx);
    }, config);
    if (parent) parent.push(...hooks);
    else for (const hook of hooks) runHook(hook);
    return result;
  };
}

function runHook(hook: () => void): void {
  try {
    hook();
  } catch {
    // After-commit work is bookkeeping: it never fails what committed.
  }
}

/** Runs `hook` once `executor`'s transaction has committed; at once when `executor` is none. */
export function afterCommit(executor: object, hook: () => void): void {
  const hooks = (executor as { [HOOKS]?: Hooks })[HOOKS];
  if (hooks) hooks.push(hook);
  else runHook(hook);
}
