import { and, eq, sql } from 'drizzle-orm';
import { type Executor, queryRows } from '@/db';
import { type AutomationEntry, type AutomationSkipReason, messages, phones } from '@/db/schema';
import { forwardReplyOf } from '@/lib/email-to-sms/replies';
import { notifyDeliveriesQueued } from '@/lib/events/emit';
import { submitAutomatic } from '@/lib/messages/pipeline';
import type { MessageRow } from '@/lib/messages/present';
import { automationActed } from '@/lib/metrics/record';
import { type InboundContext, planAutomation, type Step } from './decide';
import { lockAccountEmails, queueForwardEmail } from './forward-email';

/**
 * Runs the account's automation on an inbound message, in the transaction that claimed its mark
 * after the message was recorded (lib/automation/pending.ts): the mark is claimed once, and each
 * SMS action is once per inbound message (messages_origin_key), so a repeated report or a second
 * run never acts twice. Opt-out words were handled when the message was recorded and run nothing
 * here. What happened is written to the message's `automation`, and answered (null: nothing to do).
 */
export async function runInboundAutomation(
  tx: Executor,
  inbound: MessageRow,
  receivedEventId: string | undefined,
): Promise<AutomationEntry[] | null> {
  if (inbound.kind !== 'message' || inbound.direction !== 'inbound') return null;
  const [phone] = await tx
    .select({ groupId: phones.groupId })
    .from(phones)
    .where(and(eq(phones.accountId, inbound.accountId), eq(phones.id, inbound.phoneId)));
  if (!phone) return null;
  const context: InboundContext = {
    accountId: inbound.accountId,
    phoneId: inbound.phoneId,
    groupId: phone.groupId,
    phone: inbound.to,
    from: inbound.from,
    text: inbound.content,
  };
  const plan = await planAutomation(tx, context);
  // After the rules (a stop or start word does nothing else): a reply to an SMS sent by email goes to the mail's sender.
  const reply = plan.optOut ? undefined : await forwardReplyOf(tx, context);
  const steps: Step[] = reply
    ? [...plan.steps, { ruleId: null, ruleName: 'Email to SMS', index: 0, action: 'email_reply', email: reply }]
    : plan.steps;
  if (steps.length === 0) return null;
  const fromAutomation = await isAutomaticMessageOfAccount(tx, inbound);
  // Before any other lock of the automation (lib/automation/forward-email.ts).
  if (!fromAutomation && steps.some((step) => step.email)) await lockAccountEmails(tx, inbound.accountId);
  const entries: AutomationEntry[] = [];
  const lasting = new LastingSkips();
  for (const step of steps) {
    const reason = fromAutomation ? 'sent_by_automation' : (step.skipped ?? lasting.reasonFor(step));
    const entry: AutomationEntry = reason
      ? { rule_id: step.ruleId, action: step.action, result: 'skipped', reason }
      : await act(tx, inbound, step, receivedEventId);
    if (entry.reason) lasting.met(step, entry.reason);
    entries.push(entry);
  }
  await tx
    .update(messages)
    .set({ automation: entries })
    .where(and(eq(messages.accountId, inbound.accountId), eq(messages.id, inbound.id)));
  automationActed(tx, entries);
  return entries;
}

/** Which kinds of step a skip reason stops for the rest of one inbound message, once met. */
const LASTING_FOR: Partial<Record<AutomationSkipReason, readonly ('sms' | 'email')[]>> = {
  // AUTO_REPLY_LIMIT counts SMS and forward emails of one counterpart together.
  limit_reached: ['sms', 'email'],
  account_limit_reached: ['sms'],
  no_credit: ['sms'],
  email_limit_reached: ['email'],
};

/**
 * The skips that hold for the rest of one inbound message: the counterpart's and the account's
 * hourly counts only grow while the message's transaction holds their locks, and a group without
 * the credit for one SMS has none for the next, so once one says no, the later steps it governs
 * are skipped at once, without a query.
 */
export class LastingSkips {
  private readonly reasons = new Map<'sms' | 'email', AutomationSkipReason>();

  reasonFor(step: Step): AutomationSkipReason | undefined {
    const kind = step.sms ? 'sms' : step.email ? 'email' : undefined;
    return kind ? this.reasons.get(kind) : undefined;
  }

  met(step: Step, reason: AutomationSkipReason): void {
    if (!step.sms && !step.email) return;
    for (const kind of LASTING_FOR[reason] ?? []) if (!this.reasons.has(kind)) this.reasons.set(kind, reason);
  }
}

async function act(
  tx: Executor,
  inbound: MessageRow,
  step: Step,
  receivedEventId: string | undefined,
): Promise<AutomationEntry> {
  const base = { rule_id: step.ruleId, action: step.action };
  if (step.sms) {
    const outcome = await submitAutomatic(tx, {
      origin: step.ruleId ? 'rule_reply' : 'help_reply',
      accountId: inbound.accountId,
      counterpart: inbound.from,
      from: inbound.to,
      to: step.sms.to,
      content: step.sms.content,
      cause: {
        ruleId: step.ruleId,
        inboundMessageId: inbound.id,
        key: step.ruleId ? `rule:${step.ruleId}:${step.index}` : 'help',
      },
    });
    return outcome.result === 'sent'
      ? { ...base, result: 'sent', message_id: outcome.messageId }
      : { ...base, result: 'skipped', reason: outcome.reason };
  }
  if (step.email) {
    // Queued in this transaction, sent after the commit: never SMTP inside a transaction.
    const outcome = await queueForwardEmail(tx, {
      accountId: inbound.accountId,
      counterpart: inbound.from,
      inboundMessageId: inbound.id,
      email: step.email,
    });
    return outcome.result === 'sent'
      ? { ...base, result: 'sent' }
      : { ...base, result: 'skipped', reason: outcome.reason };
  }
  const webhookId = step.webhookId as string;
  const queued = receivedEventId ? await queueForWebhook(tx, inbound.accountId, webhookId, receivedEventId) : false;
  return queued
    ? { ...base, result: 'sent', webhook_id: webhookId }
    : { ...base, result: 'skipped', reason: 'webhook_not_found', webhook_id: webhookId };
}

/**
 * Queues the message's `message.received` event for one of the account's webhooks, subscribed to
 * it or not (once: webhook_deliveries_event_webhook_key). False when the webhook is gone.
 */
async function queueForWebhook(tx: Executor, accountId: string, webhookId: string, eventId: string): Promise<boolean> {
  const [webhook] = await queryRows<{ id: string }>(
    tx,
    sql`select id from webhooks where id = ${webhookId}::uuid and account_id = ${accountId}::uuid and kind = 'endpoint'`,
  );
  if (!webhook) return false;
  await tx.execute(sql`
    insert into webhook_deliveries (account_id, webhook_id, event_id, event_type)
    values (${accountId}::uuid, ${webhookId}::uuid, ${eventId}::uuid, 'message.received')
    on conflict do nothing
  `);
  await notifyDeliveriesQueued(tx);
  return true;
}

/**
 * Whether an inbound message is an automatic message another phone of the same account sent to
 * this one: rules never answer those, so two of an account's phones cannot keep answering each
 * other (between gateways, AUTO_REPLY_LIMIT stops the exchange).
 */
async function isAutomaticMessageOfAccount(tx: Executor, inbound: MessageRow): Promise<boolean> {
  const [row] = await tx
    .select({ id: messages.id })
    .from(messages)
    .where(
      and(
        eq(messages.accountId, inbound.accountId),
        eq(messages.direction, 'outbound'),
        eq(messages.to, inbound.to),
        eq(messages.from, inbound.from),
        eq(messages.content, inbound.content),
        sql`${messages.originKind} is not null`,
        sql`${messages.createdAt} > now() - interval '1 day'`,
      ),
    )
    .limit(1);
  return row !== undefined;
}
