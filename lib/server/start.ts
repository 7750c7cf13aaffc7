import { closeDatabase, getDatabase } from '@/db';
import { appSecret, config } from '@/lib/config';
import { log } from '@/lib/log';
import { serverConfigProblems } from './required-config';

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
  const problems = serverConfigProblems();
  if (problems.length > 0) throw new Error(`Simgate cannot start:\n- ${problems.join('\n- ')}`);
  // next-auth reads NEXTAUTH_URL for its redirects and cookie names: it follows APP_URL.
  if (config.appUrl) process.env.NEXTAUTH_URL ??= config.appUrl;
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
