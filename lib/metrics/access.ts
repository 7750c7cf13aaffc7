import { createHash, timingSafeEqual } from 'node:crypto';
import { config } from '@/lib/config';
import { hostPolicyFromEnv, isAllowedHost, isLoopbackAddress, peerAddress } from '@/lib/http/host-policy';

/**
 * Who may read /metrics (docs/operating.md, "Metrics"): it is not public. A client that bears
 * METRICS_TOKEN as a Bearer token, from anywhere; otherwise a client on this machine (loopback),
 * addressing the app by a loopback name or one of its own (a page of another site rebound to
 * 127.0.0.1 names its own host). Anyone else gets 401 when a token is set (there is a way in),
 * 404 when none is (the endpoint does not exist for them).
 */
export type MetricsAccess = 'allowed' | 'unauthorized' | 'not_found';

/** What a request to /metrics shows of its client, however it came in (Next's route or the worker's listener). */
export type MetricsClient = {
  authorization: string | null;
  /** The client is on this machine: its socket is loopback, and no proxy on it names a client elsewhere. */
  loopback: boolean;
  host: string | null;
};

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Whether `authorization` is `Bearer <token>`, compared in constant time (the hashes, so lengths never show). */
export function bearsToken(authorization: string | null, token: string | undefined): boolean {
  if (!token || !authorization) return false;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return match !== null && timingSafeEqual(digest(match[1]!), digest(token));
}

export function metricsAccess(client: MetricsClient, token: string | undefined = config.metricsToken): MetricsAccess {
  if (bearsToken(client.authorization, token)) return 'allowed';
  // Local mode's loopback names count whatever the mode: the scraper is on this machine.
  if (client.loopback && isAllowedHost(client.host, { ...hostPolicyFromEnv(), localMode: true })) return 'allowed';
  return token ? 'unauthorized' : 'not_found';
}

/**
 * Whether a reverse proxy says the request came from a client elsewhere: an address in
 * X-Forwarded-For, X-Real-IP or Forwarded's `for=` that is not loopback (the socket's loopback
 * address is then the proxy's). Next sets X-Forwarded-For to the socket's address when it is
 * missing, so a loopback client's own request names only itself.
 */
function forwardedFromElsewhere(headers: Headers): boolean {
  const named = [
    ...(headers.get('x-forwarded-for') ?? '').split(','),
    headers.get('x-real-ip') ?? '',
    ...[...(headers.get('forwarded') ?? '').matchAll(/for="?\[?([^\]",;]*)/gi)].map((match) => match[1] ?? ''),
  ]
    .map((address) => address.trim())
    .filter(Boolean);
  return named.some((address) => !isLoopbackAddress(address));
}

/**
 * A request to the web app's /metrics, by the socket address `npm start`'s server vouches for.
 * Without it (`next dev`, a bare `next start`) nothing says where the client is: only the token
 * lets it in.
 */
export function webMetricsClient(req: Request): MetricsClient {
  const peer = peerAddress(req.headers);
  const loopback = peer !== undefined && isLoopbackAddress(peer) && !forwardedFromElsewhere(req.headers);
  return { authorization: req.headers.get('authorization'), loopback, host: req.headers.get('host') };
}

/** A request to the worker's METRICS_PORT listener (a Node request, its socket at hand). */
export function nodeMetricsClient(remoteAddress: string | undefined, headers: Headers): MetricsClient {
  const loopback = remoteAddress !== undefined && isLoopbackAddress(remoteAddress) && !forwardedFromElsewhere(headers);
  return { authorization: headers.get('authorization'), loopback, host: headers.get('host') };
}
