import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '@/db';
import { type AutomationEntry, messages } from '@/db/schema';
import { MAX_CONTENT_LENGTH } from '@/lib/messages/limits';
import { submitAutomatic } from '@/lib/messages/pipeline';
import { automationActed } from '@/lib/metrics/record';
import { z } from '@/lib/zod';

/** What a receiver that accepts replies may answer: `{ "reply": { "content": "…" } }`. */
export const webhookReplySchema = z
  .object({
    reply: z
      .object({ content: z.string().trim().min(1).max(MAX_CONTENT_LENGTH) })
      .openapi({ description: 'Sent from the phone that received the message, to its sender.' }),
  })
  .openapi('WebhookReply');

export type WebhookAnswer = { contentType: string | null; body: string | null; truncated: boolean };

function isJson(contentType: string | null): boolean {
  const media = (contentType ?? '').split(';', 1)[0]?.trim().toLowerCase();
  return media === 'application/json' || (media?.startsWith('application/') === true && media.endsWith('+json'));
}

/**
 * Reads a reply from a 2xx answer to a `message.received` delivery and sends it from the
 * receiving phone to the sender: charged, counted against AUTO_REPLY_LIMIT, and once per inbound
 * message (messages_origin_key), however often the delivery is retried or resent. Answers what
 * the delivery log shows of it (null: the answer held no reply, which is fine).
 */
export async function actOnWebhookReply(
  db: Database,
  target: { accountId: string; webhookId: string; inboundMessageId: string },
  answer: WebhookAnswer,
): Promise<string | null> {
  if (!isJson(answer.contentType) || !answer.body?.trim()) return null;
  if (answer.truncated) return 'malformed reply: the answer is over 16 KiB';
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    return 'malformed reply: the answer is not valid JSON';
  }
  if (typeof body !== 'object' || body === null || !('reply' in body)) return null;
  const parsed = webhookReplySchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return `malformed reply: ${issue?.path.join('.') || 'reply'}: ${issue?.message ?? 'invalid'}`;
  }
  return sendWebhookReplies(db, target, [{ content: parsed.data.reply.content }], 'webhook_reply');
}

/** One reply a webhook's answer asks for: to the inbound message's sender, or to `to`. */
export type WebhookReply = { content: string; to?: string };

/**
 * Sends the replies a webhook's answer asked for (a JSON reply, or TwiML's <Message> elements) from
 * the receiving phone, each charged, counted against AUTO_REPLY_LIMIT as caused by the inbound
 * message's sender, and sent at most once per inbound message (messages_origin_key), whatever the
 * retries and resends; recorded on the inbound message. Answers what the delivery log shows.
 */
export async function sendWebhookReplies(
  db: Database,
  target: { accountId: string; webhookId: string; inboundMessageId: string },
  replies: WebhookReply[],
  origin: 'webhook_reply' | 'twiml_reply',
): Promise<string> {
  return db.transaction(async (tx) => {
    const [inbound] = await tx
      .select()
      .from(messages)
      .where(
        and(
          eq(messages.id, target.inboundMessageId),
          eq(messages.accountId, target.accountId),
          eq(messages.direction, 'inbound'),
        ),
      );
    if (!inbound) return 'reply not sent: the inbound message no longer exists';
    const results: string[] = [];
    for (const [index, reply] of replies.entries()) {
      const outcome = await submitAutomatic(tx, {
        origin,
        accountId: inbound.accountId,
        counterpart: inbound.from,
        from: inbound.to,
        to: reply.to ?? inbound.from,
        content: reply.content,
        cause: {
          ruleId: null,
          inboundMessageId: inbound.id,
          key: index === 0 ? 'webhook_reply' : `webhook_reply:${index}`,
        },
      });
      if (outcome.result === 'skipped' && outcome.reason === 'already_sent') {
        results.push('reply not sent again: this message was answered already');
        continue;
      }
      const entry: AutomationEntry =
        outcome.result === 'sent'
          ? {
              rule_id: null,
              action: 'webhook_reply',
              result: 'sent',
              message_id: outcome.messageId,
              webhook_id: target.webhookId,
            }
          : {
              rule_id: null,
              action: 'webhook_reply',
              result: 'skipped',
              reason: outcome.reason,
              webhook_id: target.webhookId,
            };
      await tx
        .update(messages)
        .set({ automation: sql`coalesce(${messages.automation}, '[]'::jsonb) || ${JSON.stringify([entry])}::jsonb` })
        .where(and(eq(messages.accountId, inbound.accountId), eq(messages.id, inbound.id)));
      automationActed(tx, [entry]);
      results.push(
        outcome.result === 'sent' ? `reply sent as message ${outcome.messageId}` : `reply skipped: ${outcome.reason}`,
      );
    }
    return results.join('; ');
  });
}
