import { randomUUID } from 'node:crypto';
import { GET as appEvents } from '@/app/api/mobile/v1/events/route';
import { POST as claimOutbox } from '@/app/api/v1/device/outbox/claim/route';
import { getDb, withRequestDeadline } from '@/db';
import { principalForKey } from '@/lib/auth/key-lookup';
import { config } from '@/lib/config';
import { rateLimited } from '@/lib/errors';
import { presentedKey } from '@/lib/http/request-auth';
import { errorResponse } from '@/lib/http/route';
import { httpAnswered, surfaceOf } from '@/lib/metrics/http';
import { asAppAnswer } from '@/lib/protocols/smsgate-app/route';
import type { DirectHandler } from '@/lib/runtime/lifecycle';
import { phoneAdmission } from './phone-admission';

/**
 * The routes whose requests stay open (a phone's long-polling claim, the SMSGate app's event stream),
 * which `npm start`'s server calls itself (scripts/serve.mjs) rather than through Next's router: the
 * same handlers, through the same route() wrapper, with the same answers. Next keeps about 80 KB of
 * its own per request it routes for as long as the answer is open (measured: 1,000 waiting claims or
 * streams held 76–84 MB of live heap), which at ten thousand phones was most of the instance's
 * memory; called directly, an open request holds only what the handler itself keeps (about 30 KB).
 *
 * Opening them is paced (PHONE_CONNECTS_PER_S): when every phone reconnects at once (the instance
 * restarted), those past the rate are told to come back in 1–10 s (429 with Retry-After) before
 * their claim's or stream's database work, rather than all queueing for the database together and
 * timing out as 503s. Only a device's own key spends that budget: the key is looked up first (from
 * the key cache, or in one statement with the other phones connecting at that moment), and a request
 * with no key, an unknown or revoked one, or an account key goes on to the route, which refuses it
 * (401, 403) without more work. A flood of wrong keys then cannot turn real phones away.
 */
export function directRoutes(): Map<string, DirectHandler> {
  const admit = phoneAdmission(config.phoneConnectsPerSecond);
  const paced =
    (pathname: string, handler: DirectHandler, plainJson = false): DirectHandler =>
    (req, context) =>
      // One deadline for the key's lookup and the route's work (REQUEST_DEADLINE_MS).
      withRequestDeadline(async () => {
        // A lookup that fails (the database is down) spends the budget; the route answers the failure.
        if (!(await isDeviceKey(req).catch(() => true))) return handler(req, context);
        const retryAfter = admit();
        if (retryAfter === undefined) return handler(req, context);
        const refused = errorResponse(
          rateLimited(retryAfter, 'Too many phones are connecting to this server at once. Try again in a few seconds.'),
          randomUUID(),
          req,
        );
        httpAnswered(surfaceOf(pathname), pathname, req.method, refused.status, 0);
        return plainJson ? asAppAnswer(refused) : refused;
      });
  return new Map<string, DirectHandler>([
    ['POST /api/v1/device/outbox/claim', paced('/api/v1/device/outbox/claim', claimOutbox)],
    ['GET /api/mobile/v1/events', paced('/api/mobile/v1/events', appEvents, true)],
  ]);
}

/** Whether the request bears the key of a device that is not revoked (the route checks the rest). */
async function isDeviceKey(req: Request): Promise<boolean> {
  const key = presentedKey(req);
  if (!key) return false;
  return (await principalForKey(await getDb(), key))?.kind === 'device';
}
