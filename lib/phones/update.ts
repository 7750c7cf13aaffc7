import { and, eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { phones } from '@/db/schema';
import { notFound } from '@/lib/errors';
import { withTransaction } from '@/lib/transactions';
import { resolveGroupId } from './create';
import type { PhoneView } from './present';
import { getPhone } from './read';

export type UpdatePhoneInput = {
  label?: string | null;
  groupId?: number;
  messagesPerMinute?: number;
  dailyCap?: number | null;
  hourlyCap?: number | null;
  monthlyRecipientCap?: number | null;
  jitterSeconds?: number;
};

/** Changes a phone's label, group, pacing or quotas; fields left out keep their value. */
export async function updatePhone(
  executor: Executor,
  accountId: string,
  phoneId: string,
  input: UpdatePhoneInput,
): Promise<PhoneView> {
  return withTransaction(executor, async (tx) => {
    const groupId = input.groupId === undefined ? undefined : await resolveGroupId(tx, accountId, input.groupId);
    const changes = {
      label: input.label,
      groupId,
      messagesPerMinute: input.messagesPerMinute,
      dailyCap: input.dailyCap,
      hourlyCap: input.hourlyCap,
      monthlyRecipientCap: input.monthlyRecipientCap,
      jitterSeconds: input.jitterSeconds,
    };
    const defined = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
    if (Object.keys(defined).length > 0) {
      const [updated] = await tx
        .update(phones)
        .set(defined)
        .where(and(eq(phones.accountId, accountId), eq(phones.id, phoneId)))
        .returning({ id: phones.id });
      if (!updated) throw notFound('Phone');
    }
    return getPhone(tx, accountId, phoneId);
  });
}
