import type { IncomingMessage } from 'node:http';
import proxyaddr from 'proxy-addr';
import { peerAddress } from '@/lib/http/host';

const MAX_IP_LENGTH = 64;

/**
 * Which hops may say who the client is, from `TRUST_PROXY`: unset trusts none (forwarding headers
 * are ignored); a number trusts that many hops next to the server; anything else is a comma list
 * of addresses, CIDRs or proxy-addr's names (`loopback`, `linklocal`, `uniquelocal`).
 */
export function trustedProxies(value = process.env.TRUST_PROXY): ((address: string, hop: number) => boolean) | null {
  const trimmed = value?.trim();
  if (!trimmed) return null;
  if (/^\d+$/.test(trimmed)) {
    const hops = Number(trimmed);
    return (_address, hop) => hop < hops;
  }
  return proxyaddr.compile(trimmed.split(',').map((entry) => entry.trim()));
}

/** Why a TRUST_PROXY value cannot be used, if it cannot (checked at start). */
export function trustProxyProblem(value = process.env.TRUST_PROXY): string | undefined {
  try {
    trustedProxies(value);
    return undefined;
  } catch (error) {
    return `TRUST_PROXY "${value}" is not a hop count or a list of addresses/CIDRs: ${(error as Error).message}`;
  }
}

/**
 * The caller's address for per-IP limits: the socket address `npm start`'s server reports, or,
 * through trusted proxies (TRUST_PROXY), the right-most `X-Forwarded-For` entry that is not a
 * trusted proxy, as proxy-addr reads it. A client cannot choose it by sending headers. Without
 * `npm start`'s server (no socket address) every request counts as "unknown".
 */
export function clientIp(req: Request): string {
  const peer = peerAddress(req.headers);
  if (!peer) return 'unknown';
  const trust = trustedProxies();
  if (!trust) return peer.slice(0, MAX_IP_LENGTH);
  const forwardedFor = req.headers.get('x-forwarded-for') ?? undefined;
  const incoming = {
    socket: { remoteAddress: peer },
    connection: { remoteAddress: peer },
    headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
  } as unknown as IncomingMessage;
  return proxyaddr(incoming, trust).slice(0, MAX_IP_LENGTH);
}
