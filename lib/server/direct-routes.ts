import { GET as appEvents } from '@/app/api/mobile/v1/events/route';
import { POST as claimOutbox } from '@/app/api/v1/device/outbox/claim/route';
import type { DirectHandler } from './lifecycle';

/**
 * The routes whose requests stay open (a phone's long-polling claim, the SMSGate app's event stream),
 * which `npm start`'s server calls itself (scripts/serve.mjs) rather than through Next's router: the
 * same handlers, through the same route() wrapper, with the same answers. Next keeps about 80 KB of
 * its own per request it routes for as long as the answer is open (measured: 1,000 waiting claims or
 * streams held 76–84 MB of live heap), which at ten thousand phones was most of the instance's
 * memory; called directly, an open request holds only what the handler itself keeps.
 */
export function directRoutes(): Map<string, DirectHandler> {
  return new Map<string, DirectHandler>([
    ['POST /api/v1/device/outbox/claim', claimOutbox],
    ['GET /api/mobile/v1/events', appEvents],
  ]);
}
