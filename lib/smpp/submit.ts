import { and, eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { phoneGroups, smppSubmits } from '@/db/schema';
import { submitMessage } from '@/lib/messages/pipeline';
import type { MessageWire } from '@/lib/messages/present';
import { withTransaction } from '@/lib/transactions';

export type SmppSubmit = {
  /** The sending phone (E.164); absent: the account's default group. */
  from?: string;
  to: string;
  content: string;
  sendAt?: Date;
  ttlSeconds?: number;
  /** SMPP's registered_delivery: non-zero asks for receipts. */
  registeredDelivery: number;
  /** The id answered already for the first part of a concatenated message. */
  id?: string;
};

async function defaultGroupId(executor: Executor, accountId: string): Promise<number> {
  const [group] = await executor
    .select({ id: phoneGroups.id })
    .from(phoneGroups)
    .where(and(eq(phoneGroups.accountId, accountId), eq(phoneGroups.isDefault, true)));
  if (!group) throw new Error('submitOverSmpp: the account has no default group');
  return group.id;
}

/**
 * One submit_sm (reassembled when concatenated) through the outbound pipeline with origin `smpp`,
 * and, when it asks for receipts, the record that routes them to the login that submitted it: both
 * in one transaction, so that no state event can come before the record.
 */
export async function submitOverSmpp(
  executor: Executor,
  login: { accountId: string; systemId: string },
  submit: SmppSubmit,
): Promise<MessageWire> {
  return withTransaction(executor, async (tx) => {
    const sender = submit.from ? { from: submit.from } : { fromGroup: await defaultGroupId(tx, login.accountId) };
    const message = await submitMessage(tx, login.accountId, {
      origin: 'smpp',
      ...sender,
      to: submit.to,
      content: submit.content,
      sendAt: submit.sendAt,
      ttlSeconds: submit.ttlSeconds,
      id: submit.id,
    });
    if (submit.registeredDelivery !== 0) {
      await tx.insert(smppSubmits).values({
        messageId: message.id,
        accountId: login.accountId,
        systemId: login.systemId,
        registeredDelivery: submit.registeredDelivery,
      });
    }
    return message;
  });
}
