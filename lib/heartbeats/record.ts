import { and, eq, ne, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { devices, heartbeats, phones } from '@/db/schema';
import type { Principal } from '@/lib/auth/principal';
import { withTransaction } from '@/lib/db';
import { DomainError } from '@/lib/errors';
import type { PhoneView } from '@/lib/phones/present';
import { getPhone } from '@/lib/phones/read';
import { emitPhoneStatusChange, emitPingIfWanted } from './phone-status';
import type { HeartbeatStatus } from './schemas';

export type HeartbeatInput = {
  /** E.164, already normalised. */
  phone: string;
  status: HeartbeatStatus;
  battery?: number | null;
  /** How many SIM cards the phone holds (slots 1..n), stored on its current device. */
  sims?: number;
};

function notYours(phone: string): DomainError {
  return new DomainError('FORBIDDEN', `Phone ${phone} is not registered to this account.`);
}

/** The account a heartbeat is for: the key's account, and for a device key only its own number. */
function accountOf(principal: Principal, phone: string): string {
  if (principal.kind === 'account') return principal.accountId;
  if (principal.phoneNumber !== phone) {
    throw new DomainError('FORBIDDEN', `A device key reports only for its own number, ${principal.phoneNumber}.`);
  }
  if (!principal.accountId || principal.status !== 'activated') throw notYours(phone);
  return principal.accountId;
}

/**
 * Records a heartbeat: a history row, the phone's status, battery and last heartbeat time, and
 * a phone.online / phone.offline event when the status changes. The change is an UPDATE guarded
 * by `status <> new`, so of concurrent heartbeats exactly one reports the transition.
 */
export async function recordHeartbeat(
  executor: Executor,
  principal: Principal,
  input: HeartbeatInput,
): Promise<PhoneView> {
  const accountId = accountOf(principal, input.phone);
  return withTransaction(executor, async (tx) => {
    const [phone] = await tx
      .select({ id: phones.id, deviceId: phones.deviceId })
      .from(phones)
      .where(and(eq(phones.accountId, accountId), eq(phones.phone, input.phone)));
    if (!phone) throw notYours(input.phone);
    if (input.sims !== undefined && phone.deviceId) {
      const simCards = Array.from({ length: input.sims }, (_, index) => ({
        slot: index + 1,
        phone_number: null,
        carrier: null,
      }));
      await tx.update(devices).set({ simCards }).where(eq(devices.id, phone.deviceId));
    }
    const battery = input.battery ?? null;
    await tx.insert(heartbeats).values({ accountId, phoneId: phone.id, status: input.status, battery });
    const changes = {
      status: input.status,
      battery: sql`coalesce(${battery}::smallint, ${phones.battery})`,
      lastHeartbeatAt: sql`now()`,
    };
    const [changed] = await tx
      .update(phones)
      .set(changes)
      .where(and(eq(phones.id, phone.id), ne(phones.status, input.status)))
      .returning();
    const [current] = changed
      ? [changed]
      : await tx.update(phones).set(changes).where(eq(phones.id, phone.id)).returning();
    if (changed) await emitPhoneStatusChange(tx, changed);
    if (current && input.status === 'online') await emitPingIfWanted(tx, current);
    return getPhone(tx, accountId, phone.id);
  });
}
