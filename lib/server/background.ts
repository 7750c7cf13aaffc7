import { startAlertWork } from '@/lib/alerts/background';
import { startAutomationWork } from '@/lib/automation/background';
import { config } from '@/lib/config';
import { startEmailWork } from '@/lib/email/background';
import { startFleetWork } from '@/lib/heartbeats/background';
import { log } from '@/lib/log';
import { startMessagingWork } from '@/lib/messages/background';
import { startRateLimitHousekeeping } from '@/lib/rate-limit/sweep';
import { startRetentionWork } from '@/lib/retention/background';
import { markBackground } from '@/lib/runtime/lifecycle';
import { startStatsWork } from '@/lib/stats/background';
// The webhook worker posts every format the adapters register.
import '@/lib/protocols/register';
import { startSmtpDoor } from '@/lib/protocols/email/start';
import { startWebhookWork } from '@/lib/webhooks/background';
import { startEmbeddedMaintenance } from './embedded-maintenance';
import { onShutdown } from './start';

let started = false;

/**
 * Background work (offline sweep, expiry sweep, webhook delivery, the recovery of inbound automation,
 * automation and alert email, account alerts, rate-limit housekeeping, retention, the statistics'
 * daily rollups, the embedded database's ANALYZE and VACUUM, and Email to SMS's SMTP server when
 * SMTP_PORT is set). The server starts it
 * in-process unless BACKGROUND=off (web-only instances); `npm run worker` (`worker: true`) runs the
 * same set in a separate process whatever BACKGROUND says. Each starter returns its stop function;
 * a second call does nothing.
 */
export async function startBackgroundWork(options: { worker?: boolean } = {}): Promise<void> {
  if (started) return;
  if (!options.worker && !config.backgroundWork) {
    log.info('BACKGROUND=off: sweeps and webhook deliveries run in `npm run worker` processes only');
    markBackground('off');
    return;
  }
  started = true;
  for (const start of [
    startFleetWork,
    startMessagingWork,
    startWebhookWork,
    startAutomationWork,
    startEmailWork,
    startAlertWork,
    startRateLimitHousekeeping,
    startRetentionWork,
    startStatsWork,
    startEmbeddedMaintenance,
    startSmtpDoor,
  ]) {
    onShutdown(await start());
  }
  markBackground('running');
}
