import { eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { accounts } from '@/db/schema';
import { recordAudit } from '@/lib/audit/record';
import { config } from '@/lib/config';
import { notFound } from '@/lib/errors';
import { withTransaction } from '@/lib/transactions';
import {
  EMAIL_SMS_MAX_LENGTH,
  type EmailSmsSettings,
  type EmailSmsSettingsChange,
  MAX_EMAIL_SMS_RECIPIENTS,
} from './schemas';

/** The account's choices for mail that becomes SMS, with the instance's limits and domains. */
export async function emailSmsSettings(executor: Executor, accountId: string): Promise<EmailSmsSettings> {
  const [account] = await executor
    .select({
      subject: accounts.emailSmsSubject,
      overLength: accounts.emailSmsOverLength,
      forwardReplies: accounts.emailSmsForwardReplies,
    })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  if (!account) throw notFound('Account');
  return {
    subject_prefix: account.subject,
    over_length: account.overLength,
    forward_replies: account.forwardReplies,
    max_length: EMAIL_SMS_MAX_LENGTH,
    max_recipients: MAX_EMAIL_SMS_RECIPIENTS,
    enabled: config.smtpPort !== undefined,
    domains: config.smtpDomains,
  };
}

/** Changes the keys given; the change and its audit entry commit together. */
export async function updateEmailSmsSettings(
  executor: Executor,
  accountId: string,
  change: EmailSmsSettingsChange,
): Promise<EmailSmsSettings> {
  const set = {
    ...(change.subject_prefix !== undefined ? { emailSmsSubject: change.subject_prefix } : {}),
    ...(change.over_length !== undefined ? { emailSmsOverLength: change.over_length } : {}),
    ...(change.forward_replies !== undefined ? { emailSmsForwardReplies: change.forward_replies } : {}),
  };
  return withTransaction(executor, async (tx) => {
    if (Object.keys(set).length > 0) {
      await tx.update(accounts).set(set).where(eq(accounts.id, accountId));
      await recordAudit(tx, { accountId, action: 'email_sms_settings.updated', details: { ...change } });
    }
    return emailSmsSettings(tx, accountId);
  });
}
