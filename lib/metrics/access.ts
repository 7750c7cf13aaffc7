import { createHash, timingSafeEqual } from 'node:crypto';
import { config } from '@/lib/config';
import {
  carriesForwarding,
  hostPolicyFromEnv,
  isAllowedHost,
  isLocalPeer,
  isLoopbackAddress,
} from '@/lib/net/host-policy';

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
  /** The client is on this machine: its socket is loopback and the request came through no proxy. */
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
 * A request to the web app's /metrics, by the socket address `npm start`'s server vouches for.
 * Without it (`next dev`, a bare `next start`) nothing says where the client is: only the token
 * lets it in.
 */
export function webMetricsClient(req: Request): MetricsClient {
  return {
    authorization: req.headers.get('authorization'),
    loopback: isLocalPeer(req.headers),
    host: req.headers.get('host'),
  };
}

/** A request to the worker's METRICS_PORT listener (a Node request, its socket at hand). */
export function nodeMetricsClient(remoteAddress: string | undefined, headers: Headers): MetricsClient {
  // Its headers are the socket's own (no Next in between): any forwarding header shows a proxy.
  const loopback = remoteAddress !== undefined && isLoopbackAddress(remoteAddress) && !carriesForwarding(headers);
  return { authorization: headers.get('authorization'), loopback, host: headers.get('host') };
}
