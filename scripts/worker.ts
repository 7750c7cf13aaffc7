// `npm run worker`: background work (webhook delivery, expiry and offline sweeps) in its own
// process, beside the web servers (which may then run with BACKGROUND=off). Run as many as you like
// against one Postgres: workers claim with FOR UPDATE SKIP LOCKED. SIGTERM/SIGINT stop claiming,
// finish the posts in flight, exit.
import { locateDatabase } from '../db';
import { assertConfig, config } from '../lib/config';
import { log } from '../lib/log';
import { serveMetrics } from '../lib/metrics/serve';
import '../lib/protocols/register';
import { startBackgroundWork } from '../lib/server/background';
import { onShutdown, startServer } from '../lib/server/start';

async function main(): Promise<void> {
  if (!config.serverMode) {
    // The embedded database allows one process per data folder: there the server runs the work itself.
    console.error(
      'npm run worker needs DATABASE_URL (server mode). In local mode `npm start` runs the worker in-process.',
    );
    process.exit(1);
  }
  locateDatabase(config.database);
  await startServer();
  // Started here whatever BACKGROUND says (the server's own start skips it when BACKGROUND=off).
  await startBackgroundWork({ worker: true });
  const metricsPort = config.metricsPort;
  if (metricsPort !== undefined) {
    const listener = await serveMetrics(metricsPort, config.listenHost);
    onShutdown(listener.close);
    log.info({ port: listener.port }, 'worker serves /metrics');
  }
  // Every loop's timer is unref'd (so the web server can exit); here the process exists for them.
  setInterval(() => {}, 60_000);
  log.info('worker running; SIGTERM to stop');
}

try {
  assertConfig();
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
// tsx runs this file as CommonJS (no "type": "module"), so no top-level await.
main().catch((error) => {
  log.fatal({ err: error }, 'worker failed to start');
  process.exit(1);
});
