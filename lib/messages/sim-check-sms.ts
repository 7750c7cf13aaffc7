import { randomUUID } from 'node:crypto';
import type { Transaction } from '@/db';
import { notifyOutbox } from '@/lib/notify/outbox';
import { DEFAULT_TTL_SECONDS } from './limits';
import { writeOutboundMessages } from './outbound-row';
import { countSegments } from './segments';
import { afterTransition } from './state-machine';

export type SimCheckSms = {
  accountId: string;
  /** The phone that texts the check: another verified phone of the account, or the phone itself. */
  sender: { id: string; phone: string };
  to: string;
  content: string;
};

/** The free check SMS (no group is charged) on the sending phone's queue, its history row and its wake-up. */
export async function queueFreeSimCheck(tx: Transaction, check: SimCheckSms): Promise<void> {
  const { encoding, segments } = countSegments(check.content);
  const now = new Date();
  const [row] = await writeOutboundMessages(tx, [
    {
      id: randomUUID(),
      accountId: check.accountId,
      phoneId: check.sender.id,
      groupId: null,
      from: check.sender.phone,
      to: check.to,
      content: check.content,
      segments,
      encoding,
      kind: 'sim_check',
      dataPort: null,
      sim: null,
      fromGroup: null,
      priority: 'normal',
      callbackWebhookId: null,
      requestId: null,
      bulkId: null,
      encrypted: false,
      origin: null,
      sendAt: now,
      expiresAt: new Date(now.getTime() + DEFAULT_TTL_SECONDS * 1000),
      createdAt: now,
    },
  ]);
  if (!row) throw new Error('queueFreeSimCheck: insert returned no row');
  await afterTransition(tx, [row], { at: now });
  await notifyOutbox(tx, check.sender.id);
}
