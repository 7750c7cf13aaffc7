import { getDatabase } from '@/db';
import { log } from '@/lib/log';

export type Unlisten = () => Promise<void>;

/**
 * LISTENs on a channel of the database (Postgres or the embedded PGlite); undefined when it
 * cannot, and the caller polls only. On Postgres `onNotify` is also called each time the LISTEN
 * connection (re)connects: what was notified while it was down is looked for at once.
 */
export async function listenTo(channel: string, onNotify: () => void): Promise<Unlisten | undefined> {
  const { driver } = await getDatabase();
  try {
    if (driver.kind === 'postgres') {
      const subscription = await driver.client.listen(channel, onNotify, onNotify);
      return () => subscription.unlisten();
    }
    return await driver.client.listen(channel, onNotify);
  } catch (error) {
    log.warn({ err: error, channel }, 'cannot LISTEN; polling only');
    return undefined;
  }
}
