import type { Database } from '@/db';
import { sendWebhookReplies, type WebhookAnswer } from '@/lib/automation/webhook-reply';
import { parseTwiml } from './twiml';

/**
 * A Twilio-format webhook's 2xx answer to an inbound message: TwiML whose <Message> elements are
 * sent as automatic replies through the gate of automatic SMS (lib/messages/gate.ts). An empty body
 * or one that is not XML sends nothing; malformed TwiML sends nothing and says why in the delivery
 * log (the delivery itself succeeded: it is not retried).
 */
export async function actOnTwimlReply(
  db: Database,
  target: { accountId: string; webhookId: string; inboundMessageId: string },
  answer: WebhookAnswer,
): Promise<string | null> {
  const body = answer.body?.trim();
  if (!body) return null;
  const media = (answer.contentType ?? '').split(';', 1)[0]?.trim().toLowerCase() ?? '';
  if (!body.startsWith('<') && !media.includes('xml')) return null;
  if (answer.truncated) return 'malformed TwiML: the answer is over 16 KiB';
  const parsed = parseTwiml(body);
  if ('error' in parsed) return parsed.error;
  if (parsed.replies.length === 0) return null;
  return sendWebhookReplies(db, target, parsed.replies, 'twiml_reply');
}
