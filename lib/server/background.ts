import { startFleetWork } from '@/lib/heartbeats/background';
import { startMessagingWork } from '@/lib/messages/background';
import { startRateLimitHousekeeping } from '@/lib/rate-limit/sweep';
import { startWebhookWork } from '@/lib/webhooks/background';
import { onShutdown } from './start';

/**
 * Background work (offline sweep, expiry sweep, webhook delivery, rate-limit housekeeping). The server starts it
 * in-process; `npm run worker` runs the same set in a separate process. Each starter returns
 * its stop function.
 */
export async function startBackgroundWork(): Promise<void> {
  for (const start of [startFleetWork, startMessagingWork, startWebhookWork, startRateLimitHousekeeping]) {
    onShutdown(await start());
  }
}
