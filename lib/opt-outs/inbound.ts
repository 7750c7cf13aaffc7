import { eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { accounts } from '@/db/schema';
import { submitAutomatic } from '@/lib/messages/pipeline';
import type { MessageRow } from '@/lib/messages/present';
import { optOutWordActed } from '@/lib/metrics/record';
import { optIn, optOut } from './manage';
import { optOutWordOf } from './words';

export type OptOutOutcome = 'opted_out' | 'opted_in' | null;

/**
 * Acts on an inbound SMS whose whole text is a stop or start word: the sender is opted out of
 * (or back into) the account that owns the receiving phone. Runs in the inbound message's
 * transaction, before anything else reacts to the message; non-null means the text was such a
 * word and nothing else should treat it as a message to answer.
 */
export async function handleOptOutWord(tx: Executor, inbound: MessageRow): Promise<OptOutOutcome> {
  const word = optOutWordOf(inbound.content);
  if (!word) return null;
  const change = {
    accountId: inbound.accountId,
    phone: inbound.from,
    source: 'inbound' as const,
    accountPhone: inbound.to,
  };
  if (word === 'start') {
    await optIn(tx, change);
    optOutWordActed(tx, 'opted_in');
    return 'opted_in';
  }
  const { created } = await optOut(tx, change);
  if (created) await sendConfirmation(tx, inbound);
  optOutWordActed(tx, 'opted_out');
  return 'opted_out';
}

/**
 * The account's optional confirmation, from the phone that was texted, through the gate of
 * automatic SMS (its country, premium-rate and per-number caps, its credits); whatever the gate
 * refuses is not sent, and the opt-out stands.
 */
async function sendConfirmation(tx: Executor, inbound: MessageRow): Promise<void> {
  const [account] = await tx
    .select({ reply: accounts.optOutReply })
    .from(accounts)
    .where(eq(accounts.id, inbound.accountId));
  if (!account?.reply) return;
  await submitAutomatic(tx, {
    origin: 'opt_out_confirmation',
    accountId: inbound.accountId,
    counterpart: inbound.from,
    from: inbound.to,
    to: inbound.from,
    content: account.reply,
  });
}
