import { getDb } from '@/db';
import { config } from '@/lib/config';
import { log } from '@/lib/log';
import { listenSmtpDoor } from './server';

/**
 * Starts Email to SMS where SMTP_PORT is set, in the process that runs the background work (the
 * server unless BACKGROUND=off, and every `npm run worker`): several behind a TCP balancer serve the
 * same mail, since an SMTP session holds nothing another instance needs. Returns its stop function.
 */
export async function startSmtpDoor(): Promise<() => Promise<void>> {
  const port = config.smtpPort;
  if (port === undefined) return async () => {};
  const door = await listenSmtpDoor({
    db: await getDb(),
    port,
    host: config.listenHost,
    domains: config.smtpDomains,
    tls: config.smtpTls,
    allowConfirmedSenders: config.smtpAllowConfirmedSenders,
  });
  log.info(
    { port: door.port, domains: config.smtpDomains, starttls: config.smtpTls !== undefined },
    'email to SMS listens',
  );
  return door.stop;
}
