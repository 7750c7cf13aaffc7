import { sql } from 'drizzle-orm';
import { type Executor, getDatabase } from '@/db';

type Listening = { client: unknown; ready: Promise<void> };

// One LISTEN per channel and process, shared by every bundle Next evaluates.
const globalForChannels = globalThis as typeof globalThis & { __simgateChannels?: Map<string, Listening> };
globalForChannels.__simgateChannels ??= new Map();
const channels = globalForChannels.__simgateChannels;

/**
 * Calls `onNotify` whenever any instance notifies `channel` (PostgreSQL LISTEN/NOTIFY, or PGlite
 * in process). Idempotent per channel and database client: tests that swap databases listen anew.
 */
export async function listenTo(channel: string, onNotify: () => void): Promise<void> {
  const { driver } = await getDatabase();
  const current = channels.get(channel);
  if (current?.client === driver.client) return current.ready;
  const ready = Promise.resolve(driver.client.listen(channel, onNotify)).then(() => undefined);
  const listening: Listening = { client: driver.client, ready };
  channels.set(channel, listening);
  ready.catch(() => {
    if (channels.get(channel) === listening) channels.delete(channel);
  });
  return ready;
}

/** Notifies `channel` when (and only if) the caller's transaction commits. */
export async function notifyOnCommit(tx: Executor, channel: string): Promise<void> {
  await tx.execute(sql`select pg_notify(${channel}, '')`);
}
