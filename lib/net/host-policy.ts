import { config } from '@/lib/config';

/**
 * Which Host headers the app answers, and which clients are on this machine. Kept free of the
 * database and of Next so that the proxy (proxy.ts) can run it before any route.
 */
const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** The name part of a Host header (`Example.com:3000` → `example.com`, `[::1]:3000` → `[::1]`). */
export function hostName(host: string): string {
  const trimmed = host.trim().toLowerCase();
  if (trimmed.startsWith('[')) return trimmed.slice(0, trimmed.indexOf(']') + 1);
  return trimmed.replace(/:\d*$/, '');
}

export type HostPolicy = {
  /** APP_URL (or NEXTAUTH_URL): its host is always allowed. */
  appUrl?: string;
  /** Local mode also answers localhost, 127.0.0.1 and [::1]. */
  localMode: boolean;
  /** ALLOWED_HOSTS: more names, comma-separated (another domain, a LAN address, a probe's). */
  extraHosts?: string;
};

export function hostPolicyFromEnv(): HostPolicy {
  return { appUrl: config.appUrl, localMode: !config.serverMode, extraHosts: config.allowedHosts };
}

/**
 * DNS rebinding: a web page may point its own name at 127.0.0.1 and then call the app as a
 * "same-origin" site, with its own name in the Host header. Only the names the app is served
 * under are answered.
 */
export function isAllowedHost(host: string | null, policy: HostPolicy): boolean {
  if (!host) return false;
  const name = hostName(host);
  if (policy.localMode && LOOPBACK_NAMES.has(name)) return true;
  if (policy.appUrl && name === hostName(new URL(policy.appUrl).host)) return true;
  return (policy.extraHosts ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .some((entry) => hostName(entry) === name);
}

/**
 * Set by `npm start`'s server on every request (scripts/serve.mjs `vouchFor`): `<per-process token>
 * <socket address>`, then ` proxied` when the request reached the socket with a forwarding header,
 * then ` secured` when the server has already set the API's security headers on the answer
 * (`SECURED_BY_HOST`, lib/http/front-door.ts).
 */
export const PEER_HEADER = 'x-simgate-peer';
export const PEER_TOKEN_ENV = 'SIMGATE_PEER_TOKEN';
export const SECURED_BY_HOST = 'secured';
export const PROXIED = 'proxied';

type Peer = { address: string; secured: boolean; proxied: boolean };

/** What `npm start`'s server vouched for, with the token only this process knows; undefined elsewhere. */
function peerOf(headers: Headers): Peer | undefined {
  const token = config.peerToken;
  const peer = headers.get(PEER_HEADER);
  if (!token || !peer) return undefined;
  const [given, address, ...marks] = peer.split(' ');
  if (given !== token || !address) return undefined;
  return { address, secured: marks.includes(SECURED_BY_HOST), proxied: marks.includes(PROXIED) };
}

/** `127.0.0.0/8`, `::1`, or an IPv4-mapped loopback address. */
export function isLoopbackAddress(address: string): boolean {
  const plain = address.replace(/^::ffff:/, '');
  return plain === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(plain);
}

/**
 * The address of the socket the request came in on, as `npm start`'s server writes it (with a
 * token only this process knows, so a client cannot forge it); undefined elsewhere (`next dev`,
 * a bare `next start`, tests calling handlers).
 */
export function peerAddress(headers: Headers): string | undefined {
  return peerOf(headers)?.address;
}

/** Whether `npm start`'s server has set the API's security headers on this request's answer. */
export function securedByHost(headers: Headers): boolean {
  return peerOf(headers)?.secured === true;
}

/** The headers by which a reverse proxy names the client it passes on. */
export const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'] as const;

/**
 * Whether a request as it reached the socket (a Node request's headers, before Next) came through
 * a proxy: it carries a forwarding header, whatever address that names and whatever TRUST_PROXY
 * says. A proxy on this machine connects from 127.0.0.1 for clients anywhere.
 */
export function carriesForwarding(headers: Headers): boolean {
  return FORWARDING_HEADERS.some((name) => headers.has(name));
}

/**
 * The same question once Next has the request: Next adds X-Forwarded-For (the socket's address)
 * when it is missing, so what shows a proxy is Forwarded, X-Real-IP, or an X-Forwarded-For naming
 * more than one address or any address not on this machine.
 */
function forwardedPastNext(headers: Headers): boolean {
  if (headers.has('forwarded') || headers.has('x-real-ip')) return true;
  const named = headers.get('x-forwarded-for');
  if (named === null) return false;
  const addresses = named.split(',').map((address) => address.trim());
  return addresses.length > 1 || !addresses.every(isLoopbackAddress);
}

/**
 * Whether `npm start`'s server vouches that the client is on this machine: its socket is loopback
 * and the request carried no forwarding header (scripts/serve.mjs saw it before Next did). False
 * where no server vouches (`next dev`, a bare `next start`).
 */
export function isLocalPeer(headers: Headers): boolean {
  const peer = peerOf(headers);
  return peer !== undefined && isLoopbackAddress(peer.address) && !peer.proxied && !forwardedPastNext(headers);
}

/**
 * Whether the client is on this machine, for the local-only surfaces (the dev inbox): by the socket
 * under `npm start` (`isLocalPeer`), else only when it names a loopback Host and no proxy shows.
 * A request through a reverse proxy is never local, even from a proxy on this machine.
 */
export function isLoopbackClient(headers: Headers, url: string): boolean {
  if (peerOf(headers)) return isLocalPeer(headers);
  return LOOPBACK_NAMES.has(hostName(headers.get('host') ?? new URL(url).host)) && !forwardedPastNext(headers);
}
