import { sql } from 'drizzle-orm';
import { type Executor, queryRows } from '@/db';
import { emailSmsSenders } from '@/db/schema';
import type { Email } from '@/lib/email/send';
import { EMAIL_REPLY_WINDOW_DAYS } from './schemas';

/**
 * Remembers who sent the SMS a mail became (its envelope sender, or its From header under the null
 * sender), for the replies to them (`forwardReplyOf`); once per message. The retention sweep removes
 * the rows past EMAIL_REPLY_WINDOW_DAYS, which no reply can use any more.
 */
export async function recordMailSender(
  executor: Executor,
  accountId: string,
  sender: string,
  messageIds: readonly string[],
): Promise<void> {
  const address = sender.trim().toLowerCase();
  if (!address || messageIds.length === 0) return;
  await executor
    .insert(emailSmsSenders)
    .values(messageIds.map((messageId) => ({ accountId, messageId, sender: address })))
    .onConflictDoNothing();
}

/** Whether the account forwards replies and has sent SMS by email recently: only then is an inbound message worth a look. */
export function mayForwardRepliesSql(accountId: string) {
  return sql`exists (select 1 from accounts where id = ${accountId}::uuid and email_sms_forward_replies)
    and exists (select 1 from email_sms_senders where account_id = ${accountId}::uuid
      and created_at > now() - make_interval(days => ${EMAIL_REPLY_WINDOW_DAYS}))`;
}

export type InboundReply = {
  accountId: string;
  /** The sender's number. */
  from: string;
  /** The receiving phone's number. */
  phone: string;
  text: string;
};

/**
 * The email that forwards an inbound SMS to the mail that caused it, when the account forwards
 * replies (`forward_replies`) and the sender's number's latest outbound message, within
 * EMAIL_REPLY_WINDOW_DAYS, was sent by a mail: to that mail's sender. Whether the address may be
 * mailed (the account's email or a confirmed address) and the automatic email limits are the
 * forward's own checks (lib/automation/forward-email.ts).
 */
export async function forwardReplyOf(executor: Executor, inbound: InboundReply): Promise<Email | undefined> {
  const [row] = await queryRows<{ sender: string }>(
    executor,
    sql`select s.sender
        from (select id from messages
              where account_id = ${inbound.accountId}::uuid and direction = 'outbound' and "to" = ${inbound.from}
                and created_at > now() - make_interval(days => ${EMAIL_REPLY_WINDOW_DAYS})
              order by created_at desc limit 1) latest
        join email_sms_senders s on s.account_id = ${inbound.accountId}::uuid and s.message_id = latest.id
        where exists (select 1 from accounts where id = ${inbound.accountId}::uuid and email_sms_forward_replies)`,
  );
  if (!row) return undefined;
  return {
    to: row.sender,
    subject: `SMS reply from ${inbound.from}`,
    text: `${inbound.text}\n\n-- \n${inbound.from} answered, on ${inbound.phone}, the SMS your mail sent. Forwarded by Simgate Email to SMS.`,
  };
}
