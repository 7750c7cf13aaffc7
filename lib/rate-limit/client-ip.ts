import type { IncomingMessage } from 'node:http';
import ipaddr from 'ipaddr.js';
import proxyaddr from 'proxy-addr';
import { config } from '@/lib/config';
import { peerAddress } from '@/lib/net/host-policy';

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

/** Hextets of an IPv6 address that name its /64: one subscriber's LAN, however many addresses it uses. */
const IPV6_NETWORK_HEXTETS = 4;

/**
 * The key a per-IP limit counts under: an IPv4 address as is (an IPv4-mapped IPv6 address,
 * `::ffff:203.0.113.7`, as its IPv4), an IPv6 address by its /64 (`2001:db8:1:2::/64`), since a
 * single host is routinely handed a whole /64 and could otherwise spend a new bucket per address.
 * Anything that does not parse ("unknown") is kept as it is.
 */
export function rateLimitAddress(ip: string): string {
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    address = ipaddr.parse(ip);
  } catch {
    return ip;
  }
  if (address.kind() === 'ipv4') return address.toString();
  const v6 = address as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  const network = v6.parts.slice(0, IPV6_NETWORK_HEXTETS).concat([0, 0, 0, 0]);
  return `${new ipaddr.IPv6(network).toString()}/64`;
}

/** A per-IP rate-limit bucket, e.g. `register-ip:203.0.113.7` or `register-ip:2001:db8::/64`. */
export function ipBucket(limitName: string, ip: string): string {
  return `${limitName}:${rateLimitAddress(ip)}`;
}
