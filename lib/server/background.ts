import { startFleetWork } from '@/lib/heartbeats/background';
import { startMessagingWork } from '@/lib/messages/background';
import { startWebhookWork } from '@/lib/webhooks/background';
import { onShutdown } from './start';

/**
 * Background work (offline sweep, expiry sweep, webhook delivery). The server starts it
 * in-process; `npm run worker` runs the same set in a separate process. Each starter returns
 * its stop function.
 */
export async function startBackgroundWork(): Promise<void> {
  for (const start of [startFleetWork, startMessagingWork, startWebhookWork]) {
    onShutdown(await start());
  }
}
