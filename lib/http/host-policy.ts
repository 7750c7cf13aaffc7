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
 * Set by `npm start`'s server on every request: `<per-process token> <socket address>`, and
 * ` secured` after them when it has already set the API's security headers on the answer
 * (`SECURED_BY_HOST`, lib/http/front-door.ts).
 */
export const PEER_HEADER = 'x-simgate-peer';
export const PEER_TOKEN_ENV = 'SIMGATE_PEER_TOKEN';
export const SECURED_BY_HOST = 'secured';

type Peer = { address: string; secured: boolean };

/** What `npm start`'s server vouched for, with the token only this process knows; undefined elsewhere. */
function peerOf(headers: Headers): Peer | undefined {
  const token = config.peerToken;
  const peer = headers.get(PEER_HEADER);
  if (!token || !peer) return undefined;
  const [given, address, mark] = peer.split(' ');
  return given === token && address ? { address, secured: mark === SECURED_BY_HOST } : undefined;
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

/**
 * Whether the client is on this machine: by its socket address under `npm start`, else only when
 * it names a loopback Host.
 */
export function isLoopbackClient(headers: Headers, url: string): boolean {
  const peer = peerAddress(headers);
  if (peer) return isLoopbackAddress(peer);
  return LOOPBACK_NAMES.has(hostName(headers.get('host') ?? new URL(url).host));
}
