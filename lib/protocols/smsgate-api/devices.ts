import type { Executor } from '@/db';
import { DomainError } from '@/lib/errors';
import { deletePhone } from '@/lib/phones/delete';
import { phoneOfIdText } from '@/lib/phones/owned';
import { phonesWithSimCards } from '@/lib/phones/read';
import { iso } from '@/lib/wire';

/** GET /devices: the account's phones as SMSGate devices (`id` is the phone id). */
export async function listSmsgateDevices(executor: Executor, accountId: string) {
  const rows = await phonesWithSimCards(executor, accountId);
  return rows.map((row) => {
    const lastSeen = iso(row.lastHeartbeatAt ?? row.createdAt) ?? '';
    const reported = row.simCards ?? [];
    return {
      id: row.id,
      name: row.label ?? row.phone,
      createdAt: iso(row.createdAt) ?? '',
      updatedAt: lastSeen,
      lastSeen,
      deletedAt: null,
      simCards:
        reported.length > 0
          ? reported.map((card) => ({
              simNumber: card.slot,
              phoneNumber: card.phone_number,
              carrierName: card.carrier,
            }))
          : [{ simNumber: 1, phoneNumber: row.phone, carrierName: null }],
    };
  });
}

/**
 * DELETE /devices/{id}: removes the phone as /api/v1 does (its unsent messages refunded, its
 * credentials revoked). An id that is not one of the account's phones answers 204 too, and
 * nothing happens: SMSGate's semantics, and no way to learn another account's ids.
 */
export async function removeSmsgateDevice(executor: Executor, accountId: string, id: string): Promise<void> {
  const phone = await phoneOfIdText(executor, accountId, id);
  if (!phone) return;
  try {
    await deletePhone(executor, accountId, phone.id);
  } catch (error) {
    if (error instanceof DomainError && error.code === 'NOT_FOUND') return;
    throw error;
  }
}
