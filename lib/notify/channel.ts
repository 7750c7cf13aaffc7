import { sql } from 'drizzle-orm';
import { type Executor, getDatabase } from '@/db';

type Listening = { client: unknown; ready: Promise<void> };
type ChannelState = { listening?: Listening; callbacks: Set<() => void> };

// One LISTEN per channel and process, shared by every bundle Next evaluates.
const globalForChannels = globalThis as typeof globalThis & { __simgateChannelState?: Map<string, ChannelState> };
globalForChannels.__simgateChannelState ??= new Map();
const channels = globalForChannels.__simgateChannelState;

/**
 * Calls `onNotify` whenever any instance notifies `channel` (PostgreSQL LISTEN/NOTIFY, or PGlite
 * in process). Several callbacks may share a channel; adding the same one again changes nothing.
 * Idempotent per channel and database client: tests that swap databases listen anew.
 */
export async function listenTo(channel: string, onNotify: () => void): Promise<void> {
  const { driver } = await getDatabase();
  let state = channels.get(channel);
  if (!state) {
    state = { callbacks: new Set() };
    channels.set(channel, state);
  }
  state.callbacks.add(onNotify);
  const current = state.listening;
  if (current?.client === driver.client) return current.ready;
  const callbacks = state.callbacks;
  const ready = Promise.resolve(
    driver.client.listen(channel, () => {
      for (const callback of callbacks) callback();
    }),
  ).then(() => undefined);
  const listening: Listening = { client: driver.client, ready };
  state.listening = listening;
  ready.catch(() => {
    if (state.listening === listening) state.listening = undefined;
  });
  return ready;
}

/** Notifies `channel` when (and only if) the caller's transaction commits. */
export async function notifyOnCommit(tx: Executor, channel: string): Promise<void> {
  await tx.execute(sql`select pg_notify(${channel}, '')`);
}
