import fs from 'node:fs';
import { config } from '@/lib/config';
import { log } from '@/lib/log';
import { startSmppServer } from './server';

/**
 * Starts the SMPP server in this process when SMPP_PORT or SMPP_TLS_PORT is set (on HOST); answers
 * its stop function. The host calls it at start (lib/server/start.ts): the web instance under
 * `npm start`, and each `npm run worker`, listen where their environment says so.
 */
export async function startSmpp(): Promise<() => Promise<void>> {
  const settings = config.smpp;
  const listeners: Parameters<typeof startSmppServer>[0]['listeners'] = [];
  if (settings.port !== undefined) listeners.push({ port: settings.port, host: config.listenHost });
  if (settings.tlsPort !== undefined && settings.tlsCert && settings.tlsKey) {
    listeners.push({
      port: settings.tlsPort,
      host: config.listenHost,
      tls: { cert: fs.readFileSync(settings.tlsCert), key: fs.readFileSync(settings.tlsKey) },
    });
  }
  if (listeners.length === 0) return async () => undefined;
  const server = await startSmppServer({ listeners, limits: { window: settings.window } });
  log.info({ ports: server.ports }, 'SMPP server listening');
  return server.close;
}
