import { createHash } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { Database, Executor } from '@/db';
import { phoneGroups } from '@/db/schema';
import { DomainError } from '@/lib/errors';
import { submitMessage } from '@/lib/messages/pipeline';
import { recordMailSender } from './replies';
import { MAX_EMAIL_SMS_RECIPIENTS } from './schemas';
import { emailSmsSettings } from './settings';
import { type MailText, smsTextOf } from './text';

export type MailRecipient = {
  /** The recipient's number, E.164. */
  to: string;
  /** The sending phone the address named (`14155550123+14155550100@…`); else the account's default group. */
  from?: string;
};

export type MailSend = { to: string; id: string } | { to: string; refused: DomainError };

async function defaultGroupOf(executor: Executor, accountId: string): Promise<number> {
  const [group] = await executor
    .select({ id: phoneGroups.id })
    .from(phoneGroups)
    .where(and(eq(phoneGroups.accountId, accountId), eq(phoneGroups.isDefault, true)));
  if (!group) throw new DomainError('GROUP_NOT_FOUND', 'The account has no default group.');
  return group.id;
}

/**
 * A retry of the same mail (a client that lost the answer to DATA sends it again) sends nothing
 * twice: each recipient's message takes a request_id made of the mail's Message-ID and the number.
 */
function requestIdOf(messageId: string | undefined, recipient: MailRecipient): string | undefined {
  if (!messageId) return undefined;
  const digest = createHash('sha256')
    .update(`${messageId}\n${recipient.to}\n${recipient.from ?? ''}`)
    .digest('hex');
  return `email:${digest.slice(0, 48)}`;
}

/**
 * One mail, one SMS per recipient: the text is the mail's (`smsTextOf`, with the account's Email to
 * SMS settings), each message goes through the one send (`submitMessage`, origin `email`): credits,
 * opt-outs and countries apply as to any send. A text the settings refuse throws before anything is
 * sent; a recipient the send refuses is answered as refused, the others are sent.
 */
export async function sendMailAsSms(
  db: Database,
  accountId: string,
  mail: MailText & {
    messageId?: string;
    /** Who sent the mail: replies to its SMS may be forwarded there (lib/email-to-sms/replies.ts). */
    sender?: string;
    recipients: MailRecipient[];
  },
): Promise<MailSend[]> {
  if (mail.recipients.length < 1 || mail.recipients.length > MAX_EMAIL_SMS_RECIPIENTS) {
    throw new DomainError('VALIDATION_ERROR', `A mail names 1 to ${MAX_EMAIL_SMS_RECIPIENTS} recipients.`);
  }
  const settings = await emailSmsSettings(db, accountId);
  const content = smsTextOf(mail, {
    subjectPrefix: settings.subject_prefix,
    truncate: settings.over_length === 'truncate',
  });
  const needsGroup = mail.recipients.some((recipient) => recipient.from === undefined);
  const fromGroup = needsGroup ? await defaultGroupOf(db, accountId) : undefined;
  const sends: MailSend[] = [];
  for (const recipient of mail.recipients) {
    try {
      const sent = await submitMessage(db, accountId, {
        to: recipient.to,
        content,
        ...(recipient.from === undefined ? { fromGroup } : { from: recipient.from }),
        requestId: requestIdOf(mail.messageId, recipient),
        origin: 'email',
      });
      sends.push({ to: recipient.to, id: sent.id });
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      // The same mail again: its message was sent the first time.
      const existing = error.code === 'DUPLICATE_REQUEST' ? (error.extra?.message_id as string | undefined) : undefined;
      sends.push(existing ? { to: recipient.to, id: existing } : { to: recipient.to, refused: error });
    }
  }
  if (mail.sender) {
    const ids = sends.flatMap((send) => ('id' in send ? [send.id] : []));
    await recordMailSender(db, accountId, mail.sender, ids);
  }
  return sends;
}
