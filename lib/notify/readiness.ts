import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { type Database, getDatabase } from '@/db';

/**
 * Whether this process hears notifications: a NOTIFY sent through the pool comes back over the
 * LISTEN connection that wakes phones (postgres-js keeps one per client for every channel). While
 * that connection is down or reconnecting, a send wakes no phone here, so the instance is not ready.
 */
const CHANNEL = 'simgate_ready';

type Probe = { client: unknown; ready: Promise<void>; pending: Map<string, () => void> };

const globalForProbe = globalThis as typeof globalThis & { __simgateReadyProbe?: Probe };

async function probeListening(): Promise<Probe> {
  const { driver } = await getDatabase();
  const current = globalForProbe.__simgateReadyProbe;
  if (current?.client === driver.client) {
    await current.ready;
    return current;
  }
  const pending = new Map<string, () => void>();
  const heard = (token: string) => {
    pending.get(token)?.();
    pending.delete(token);
  };
  const ready = Promise.resolve(driver.client.listen(CHANNEL, heard)).then(() => undefined);
  const probe: Probe = { client: driver.client, ready, pending };
  globalForProbe.__simgateReadyProbe = probe;
  ready.catch(() => {
    if (globalForProbe.__simgateReadyProbe === probe) globalForProbe.__simgateReadyProbe = undefined;
  });
  await ready;
  return probe;
}

/** `work`'s answer, or a rejection ("no answer within … ms") once `timeoutMs` have passed without it. */
export async function within<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Resolves once the database answered and this process heard its own notification back, within
 * `timeoutMs`; rejects otherwise (never waits longer).
 */
export async function checkReadiness(db: Database, timeoutMs: number): Promise<void> {
  let token: string | undefined;
  let probe: Probe | undefined;
  try {
    await within(
      (async () => {
        probe = await probeListening();
        token = randomUUID();
        const heard = new Promise<void>((resolve) => probe?.pending.set(token as string, resolve));
        await db.execute(sql`select pg_notify(${CHANNEL}, ${token})`);
        await heard;
      })(),
      timeoutMs,
    );
  } finally {
    if (token) probe?.pending.delete(token);
  }
}

/** Resolves when the database answers `select 1` within `timeoutMs`; rejects otherwise. */
export async function checkDatabase(db: Database, timeoutMs: number): Promise<void> {
  await within(db.execute(sql`select 1`), timeoutMs);
}

/** How long a health check waits for the database before it answers 503: a probe never hangs. */
export const HEALTH_CHECK_TIMEOUT_MS = 2_000;
