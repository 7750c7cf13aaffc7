import dns, { type LookupAddress, type LookupOptions } from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The SSRF guard: in server mode a webhook may only reach public unicast addresses, checked when
 * the URL is saved (every address the name resolves to) and again for the address actually
 * dialled, so a name that later resolves somewhere private (DNS rebinding) is still refused.
 */
export type NetworkPolicy = { allowPrivateNetworks: boolean };

// Cloud metadata endpoints, named even where their range already covers them.
const METADATA_ADDRESSES = new Set(['169.254.169.254', 'fd00:ec2::254']);

// Deprecated IPv4-compatible IPv6 (`[::127.0.0.1]` is written ::7f00:1).
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96');

const RANGE_NAMES: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a carrier-grade NAT address',
  private: 'a private-network address',
  uniqueLocal: 'a unique-local address',
  reserved: 'a reserved address',
};

export class BlockedAddressError extends Error {
  readonly code = 'EBLOCKEDADDRESS';
  constructor(
    readonly address: string,
    reason: string,
  ) {
    super(`refused to connect to ${address}: ${reason} (webhooks may only reach public addresses)`);
    this.name = 'BlockedAddressError';
  }
}

/** Why an address may not be reached from server mode, or undefined for a public unicast address. */
export function blockedReason(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  // IPv4-mapped IPv6 (::ffff:10.0.0.1) is judged as the IPv4 address it carries.
  const parsed = ipaddr.process(address);
  if (METADATA_ADDRESSES.has(parsed.toNormalizedString()) || METADATA_ADDRESSES.has(parsed.toString())) {
    return 'a cloud metadata address';
  }
  const range = parsed.range();
  if (range === 'unicast') {
    // ipaddr.js calls ::/96 unicast, yet a system may route ::7f00:1 to the IPv4 address it ends in.
    return parsed instanceof ipaddr.IPv6 && parsed.match(IPV4_COMPATIBLE)
      ? 'an IPv4-compatible IPv6 address'
      : undefined;
  }
  // Anything but plain unicast (6to4, Teredo, NAT64, documentation, …) can hide a private target.
  return RANGE_NAMES[range] ?? `a special-purpose address (${range})`;
}

/** `[::1]` → `::1`: URL keeps the brackets of an IPv6 host. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

async function resolveAll(host: string): Promise<string[]> {
  if (net.isIP(host)) return [host];
  const addresses = await dns.promises.lookup(host, { all: true, verbatim: true });
  return addresses.map((entry) => entry.address);
}

/**
 * Checks a webhook URL's host when it is saved: every address it resolves to must be public.
 * Returns the reason it is refused, or undefined.
 */
export async function refusedHostReason(url: URL, policy: NetworkPolicy): Promise<string | undefined> {
  if (policy.allowPrivateNetworks) return undefined;
  const host = hostOf(url);
  let addresses: string[];
  try {
    addresses = await resolveAll(host);
  } catch {
    return `the host ${host} does not resolve`;
  }
  if (addresses.length === 0) return `the host ${host} does not resolve`;
  for (const address of addresses) {
    const reason = blockedReason(address);
    if (reason) return `${host} resolves to ${address}, ${reason}; webhooks may only reach public addresses`;
  }
  return undefined;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/tls connections that refuses to hand over any non-public address, so the
 * address the socket dials has always passed the guard.
 */
export function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    for (const entry of addresses) {
      const reason = blockedReason(entry.address);
      if (reason) return callback(new BlockedAddressError(entry.address, reason), []);
    }
    const first = addresses[0];
    if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), []);
    if (options.all) return callback(null, addresses);
    callback(null, first.address, first.family);
  });
}
