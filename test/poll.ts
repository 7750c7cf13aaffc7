import { DomainError } from '@/lib/errors';

/**
 * Waits for async work without a fixed sleep: polls `probe` until it returns a truthy value (which
 * is returned), failing after `timeoutMs`.
 */
export async function until<T>(
  probe: () => T | Promise<T>,
  { timeoutMs = 10_000, intervalMs = 5 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<NonNullable<T>> {
  const started = performance.now();
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (performance.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** The code of the DomainError a promise rejects with; undefined when it resolves. */
export async function errorCodeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
}
