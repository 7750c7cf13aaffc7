import { sql } from 'drizzle-orm';
import { type Executor, getDatabase } from '@/db';
import { batcher } from '@/lib/batch';

/**
 * "Device D opened event stream S", told to every instance (PostgreSQL NOTIFY; PGlite in process),
 * the announcing one included, so that the per-device stream cap holds across instances
 * (lib/devices/sessions.ts). Every listener hears the announcements in one order, the order their
 * NOTIFYs committed in.
 */
const CHANNEL = 'simgate_device_streams';

/** A device id and a stream id (both UUIDs) and the space between: nothing longer is read. */
const PAYLOAD_MAX = 80;

type Heard = (deviceId: string, streamId: string) => void;
type Listening = { client: unknown; ready: Promise<void> };

const globalForStreams = globalThis as typeof globalThis & {
  __simgateStreamAnnouncements?: { listening?: Listening; heard?: Heard };
};
globalForStreams.__simgateStreamAnnouncements ??= {};
const state = globalForStreams.__simgateStreamAnnouncements;

function hear(payload: string | undefined): void {
  if (!payload || payload.length > PAYLOAD_MAX) return;
  const [deviceId, streamId, extra] = payload.split(' ');
  if (!deviceId || !streamId || extra !== undefined) return;
  state.heard?.(deviceId, streamId);
}

/** Listens for every instance's announcements (once per process and database client). */
export async function listenForStreams(heard: Heard): Promise<void> {
  state.heard = heard;
  const { driver } = await getDatabase();
  const current = state.listening;
  if (current?.client === driver.client) return current.ready;
  const ready = Promise.resolve(driver.client.listen(CHANNEL, hear)).then(() => undefined);
  const listening: Listening = { client: driver.client, ready };
  state.listening = listening;
  ready.catch(() => {
    if (state.listening === listening) state.listening = undefined;
  });
  return ready;
}

const announcers = new WeakMap<Executor, (payload: string) => Promise<void>>();

/**
 * Tells every instance that `deviceId` opened the stream `streamId`. The announcements of streams
 * opening together (every phone reconnecting after a restart) go as one statement, in the order they
 * were made: one NOTIFY each, delivered in that order.
 */
export async function announceStream(deviceId: string, streamId: string): Promise<void> {
  const { db } = await getDatabase();
  let announce = announcers.get(db);
  if (!announce) {
    announce = batcher<string, void>({
      inFlight: 1,
      max: 500,
      gather: true,
      run: async (payloads) => {
        // Payloads are two UUIDs and a space: nothing to quote in an array literal.
        const list = `{${payloads.map((payload) => `"${payload}"`).join(',')}}`;
        await db.execute(
          sql`select pg_notify(${CHANNEL}, p.payload)
              from unnest(${list}::text[]) with ordinality as p(payload, n) order by p.n`,
        );
        return payloads.map(() => undefined);
      },
    });
    announcers.set(db, announce);
  }
  await announce(`${deviceId} ${streamId}`);
}
