import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';
import { config } from '@/lib/config';
import { peerAddress } from '@/lib/http/host';

const MAX_IP_LENGTH = 64;

/**
 * The caller's address for per-IP limits: the socket address `npm start`'s server reports, or,
 * through trusted proxies (TRUST_PROXY), the right-most `X-Forwarded-For` entry that is not a
 * trusted proxy, as proxy-addr reads it. A client cannot choose it by sending headers. Without
 * `npm start`'s server (no socket address) every request counts as "unknown".
 */
export function clientIp(req: Request): string {
  const peer = peerAddress(req.headers);
  if (!peer) return 'unknown';
  const trust = config.trustedProxies;
  if (!trust) return peer.slice(0, MAX_IP_LENGTH);
  const forwardedFor = req.headers.get('x-forwarded-for') ?? undefined;
  const incoming = {
    socket: { remoteAddress: peer },
    connection: { remoteAddress: peer },
    headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
  } as unknown as IncomingMessage;
  return proxyaddr(incoming, trust).slice(0, MAX_IP_LENGTH);
}
