import { closeDatabase, getDatabase } from '@/db';
import { appSecret } from '@/lib/config';
import { log } from '@/lib/log';

type Stoppable = () => Promise<void>;
const stoppers: Stoppable[] = [];

/** Background work started with the server; each returns its stop function. */
export function onShutdown(stop: Stoppable): void {
  stoppers.push(stop);
}

let started = false;

/**
 * Runs once per server process (from instrumentation.ts): checks configuration, opens and
 * migrates the database, starts background work, and closes everything on SIGTERM/SIGINT.
 */
export async function startServer(): Promise<void> {
  if (started) return;
  started = true;
  appSecret();
  const handle = await getDatabase();
  log.info({ database: handle.driver.kind }, 'database ready');
  const { startBackgroundWork } = await import('./background');
  await startBackgroundWork();
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      log.info({ signal }, 'shutting down');
      void Promise.allSettled(stoppers.map((stop) => stop()))
        .then(() => closeDatabase())
        .finally(() => process.exit(0));
    });
  }
}
