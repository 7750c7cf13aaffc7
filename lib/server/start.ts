import { closeDatabase, getDatabase, locateDatabase } from '@/db';
import { appSecret, assertConfig, config } from '@/lib/config';
import { freezeSettings } from '@/lib/config/env';
import { apiSecurityHeaders, guardedByRoute } from '@/lib/http/front-door';
import { log } from '@/lib/log';
import { heldBodies } from '@/lib/net/held-body';
import { SECURED_BY_HOST } from '@/lib/net/host-policy';
// The adapters' auth modes, webhook formats and sealed columns, for every bundle of this process.
import '@/lib/protocols/register';
import {
  beginShutdown,
  hostedByHttpServer,
  markStarted,
  offerApiHeaders,
  offerDirectRoutes,
  setFinalStop,
} from '@/lib/runtime/lifecycle';

type Stoppable = () => Promise<void>;
const stoppers: Stoppable[] = [];

/** Background work started with the server; each returns its stop function. */
export function onShutdown(stop: Stoppable): void {
  stoppers.push(stop);
}

let started = false;

/**
 * Runs once per server process (from instrumentation.ts): checks configuration, opens and
 * migrates the database, starts background work, and closes everything on SIGTERM/SIGINT (see
 * ./lifecycle.ts for who handles the signals).
 */
export async function startServer(): Promise<void> {
  if (started) return;
  started = true;
  assertConfig();
  locateDatabase(config.database);
  // next-auth reads NEXTAUTH_URL for its redirects and cookie names: it follows APP_URL.
  if (config.appUrl) process.env.NEXTAUTH_URL ??= config.appUrl;
  appSecret();
  // Settings are the environment's at start from here on, no longer read from it at each request
  // (`next dev` reloads .env files into the environment as they change: it goes on reading them).
  if (process.env.NODE_ENV === 'production') freezeSettings();
  // Under `npm start` its server sets the API's security headers on the Node response (cheaper).
  if (hostedByHttpServer()) {
    offerApiHeaders({ guarded: guardedByRoute, headers: apiSecurityHeaders(), mark: SECURED_BY_HOST });
    // SIMGATE_DIRECT_LANE=off leaves every request to Next's router: for the test that compares the
    // two lanes (test/direct-lane-server.test.ts); both answer alike, through the same route().
    if (process.env.SIMGATE_DIRECT_LANE !== 'off') {
      const { directRoutes } = await import('./direct-routes');
      offerDirectRoutes(directRoutes(), heldBodies);
    }
  }
  const handle = await getDatabase();
  log.info({ database: handle.driver.kind }, 'database ready');
  if (handle.repairedModes) {
    log.warn(
      { repaired: handle.repairedModes },
      'the data folder was open to other users: its files and folders are now its owner’s only (0600, 0700)',
    );
  }
  const location = config.database;
  if (handle.driver.kind === 'pglite' && 'dataDir' in location) {
    // Only this process may open the embedded folder: `npm run ops -- backup` asks it (lib/backup/live.ts).
    const client = handle.driver.client;
    const [{ serveBackups }, { embeddedBackup }] = await Promise.all([
      import('@/lib/backup/live'),
      import('@/lib/backup/backup'),
    ]);
    onShutdown(await serveBackups(location.dataDir, () => embeddedBackup(handle.db, client)));
  }
  // Phones held open cost heap: a log line says when the heap, not the database or the CPU, is the limit.
  const { watchHeap } = await import('./heap-watch');
  const stopHeapWatch = watchHeap();
  onShutdown(async () => stopHeapWatch());
  // One of several web processes (WEB_CONCURRENCY): a scrape of any process sums them all.
  const { answerClusterScrapes } = await import('@/lib/metrics/scrape');
  answerClusterScrapes();
  const { startBackgroundWork } = await import('./background');
  await startBackgroundWork();
  // The SMPP server, where SMPP_PORT or SMPP_TLS_PORT is set (docs/smpp.md).
  const { startSmpp } = await import('@/lib/protocols/smpp/listen');
  onShutdown(await startSmpp());
  // The last uses gathered in the last quarter second are written before the database closes.
  const { flushLastUsed } = await import('@/lib/auth/key-lookup');
  onShutdown(flushLastUsed);
  const stopAll = async () => {
    await Promise.allSettled(stoppers.map((stop) => stop()));
    await closeDatabase();
  };
  setFinalStop(stopAll);
  markStarted();
  // Under `npm start`, scripts/start.mjs drains its requests first, then calls stopAll.
  if (hostedByHttpServer()) return;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      log.info({ signal }, 'shutting down');
      beginShutdown();
      void stopAll().finally(() => process.exit(0));
    });
  }
}
