import { and, eq, inArray } from 'drizzle-orm';
import type { Executor } from '@/db';
import { phones } from '@/db/schema';
import { config } from '@/lib/config';
import { DomainError, validationError } from '@/lib/errors';
import { type NetworkPolicy, refusedHostReason } from './ssrf';

export function currentNetworkPolicy(): NetworkPolicy {
  return { allowPrivateNetworks: config.webhookAllowPrivateNetworks };
}

/** In server mode the URL's host must resolve to public addresses only (400 naming `url`). */
export async function assertReachableUrl(url: string, policy: NetworkPolicy = currentNetworkPolicy()): Promise<void> {
  const reason = await refusedHostReason(new URL(url), policy);
  if (reason) throw validationError('url', reason);
}

/** Every filter number must be a phone of this account (400 naming each bad entry). */
export async function assertOwnPhones(executor: Executor, accountId: string, numbers: string[]): Promise<void> {
  if (numbers.length === 0) return;
  const owned = await executor
    .select({ phone: phones.phone })
    .from(phones)
    .where(and(eq(phones.accountId, accountId), inArray(phones.phone, numbers)));
  const ownedSet = new Set(owned.map((row) => row.phone));
  const errors = numbers.flatMap((number, index) =>
    ownedSet.has(number)
      ? []
      : [{ path: `phone_filters.${index}`, message: `${number} is not a phone of this account` }],
  );
  if (errors.length > 0) {
    throw new DomainError('VALIDATION_ERROR', 'phone_filters may only name phones of this account.', { errors });
  }
}
