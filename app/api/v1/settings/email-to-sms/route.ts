import { emailSmsSettingsBody, emailSmsSettingsSchema } from '@/lib/email-to-sms/schemas';
import { emailSmsSettings, updateEmailSmsSettings } from '@/lib/email-to-sms/settings';
import { route } from '@/lib/http/route';

export const GET = route(
  {
    auth: 'account',
    doc: {
      operationId: 'getEmailSmsSettings',
      summary: 'Read the Email to SMS settings',
      description:
        'How a mail to `<number>@<domain>` becomes an SMS for this account (docs/doors.md): whether the subject opens the text, what a text past the limit does, and whether replies are forwarded to the mail’s sender; with the instance’s limits and domains, and whether it runs the SMTP server.',
      tags: ['Email to SMS'],
      response: { description: 'The settings.', schema: emailSmsSettingsSchema },
    },
  },
  async ({ db, principal }) => emailSmsSettings(db, principal.accountId),
);

export const PATCH = route(
  {
    auth: 'account',
    body: emailSmsSettingsBody,
    doc: {
      operationId: 'updateEmailSmsSettings',
      summary: 'Change the Email to SMS settings',
      description: 'Only the keys given change; audited (`email_sms_settings.updated`).',
      tags: ['Email to SMS'],
      response: { description: 'The settings.', schema: emailSmsSettingsSchema },
    },
  },
  async ({ db, principal, body }) => updateEmailSmsSettings(db, principal.accountId, body),
);
