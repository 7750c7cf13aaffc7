import { and, eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { messages, phoneGroups } from '@/db/schema';
import { checkCallbackUrl } from '@/lib/webhooks/callbacks';
import { type OutboundPlanInput, planOutbound, type RejectedRecipient } from './plan';
import { scheduleOf } from './schedule';
import type { Encoding } from './segments';

export type DryRun = {
  dry_run: true;
  messages: Array<{
    to: string;
    from: string;
    content: string;
    encoding: Encoding;
    segments: number;
    credits: number;
    sim: number | null;
  }>;
  rejected: RejectedRecipient[];
  groups: Array<{ group_id: number; name: string; credits: number; balance: number; balance_after: number }>;
  sufficient: boolean;
};

/**
 * What a send (single or bulk) would do, and nothing written: each message with its rendered
 * text, encoding, segments and credit (one per message, whatever its length), the recipients it
 * would reject and why, and the charged group's balance before and after. Refusals of the whole
 * request (403 sender, 400 fields, 404 group, 409 NO_ONLINE_PHONE) answer as the send would: the
 * schedule, the plan and the status_callback_url pass the send's own checks.
 */
export async function dryRunSend(
  executor: Executor,
  accountId: string,
  input: OutboundPlanInput & { requestId?: string; sendAt?: Date; ttlSeconds?: number; statusCallbackUrl?: string },
): Promise<DryRun> {
  scheduleOf(input);
  const plan = await planOutbound(executor, accountId, input);
  if (input.statusCallbackUrl !== undefined) await checkCallbackUrl(executor, accountId, input.statusCallbackUrl);
  const rejected = [...plan.rejected];
  let planned = plan.planned;
  if (input.requestId !== undefined && planned.length > 0) {
    const [existing] = await executor
      .select({ id: messages.id })
      .from(messages)
      .where(and(eq(messages.accountId, accountId), eq(messages.requestId, input.requestId)));
    if (existing) {
      rejected.push(
        ...planned.map((message) => ({
          index: message.index,
          to: message.to,
          code: 'DUPLICATE_REQUEST' as const,
          detail: `request_id "${input.requestId}" is already used by message ${existing.id}`,
        })),
      );
      planned = [];
    }
  }
  const [group] = await executor
    .select({ name: phoneGroups.name, balance: phoneGroups.balance })
    .from(phoneGroups)
    .where(and(eq(phoneGroups.id, plan.groupId), eq(phoneGroups.accountId, accountId)));
  const balance = group?.balance ?? 0;
  const credits = planned.length;
  return {
    dry_run: true,
    messages: planned.map((message) => ({
      to: message.to,
      from: message.phone.phone,
      content: message.content,
      encoding: message.encoding,
      segments: message.segments,
      credits: 1,
      sim: input.sim ?? null,
    })),
    rejected,
    groups: [{ group_id: plan.groupId, name: group?.name ?? '', credits, balance, balance_after: balance - credits }],
    sufficient: balance >= credits,
  };
}
