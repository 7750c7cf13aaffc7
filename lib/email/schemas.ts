import { emailAddress } from '@/lib/accounts/schemas';
import { z } from '@/lib/zod';

/** Forwarding addresses an account may keep besides its own sign-in email. */
export const MAX_EMAIL_ADDRESSES = 20;
/** How long a confirmation link works. */
export const CONFIRMATION_LIFETIME_SECONDS = 24 * 3600;
/** Confirmation emails an account may have sent per hour (adding or re-adding addresses). */
export const CONFIRMATION_EMAILS_PER_HOUR = 10;

export const emailAddressSchema = z
  .object({
    id: z.uuid(),
    email: z.string().openapi({ format: 'email', example: 'ops@example.com' }),
    status: z.enum(['pending', 'confirmed']).openapi({
      description:
        '`pending` until the link emailed to the address is opened; only `confirmed` addresses receive forwards.',
    }),
    confirmed_at: z.iso.datetime().nullable(),
    confirmation_expires_at: z.iso.datetime().nullable().openapi({
      description:
        'When the pending confirmation link stops working (add the address again for a new one); null once confirmed.',
    }),
    created_at: z.iso.datetime(),
  })
  .openapi('EmailAddress');

export type EmailAddressWire = z.infer<typeof emailAddressSchema>;

export const emailAddressListSchema = z
  .object({
    account_email: z.string().openapi({
      format: 'email',
      description: 'The account’s sign-in email: always allowed as a forwarding address, without confirmation.',
    }),
    data: z.array(emailAddressSchema),
  })
  .openapi('EmailAddressList');

export const addEmailAddressBody = z.strictObject({ email: emailAddress }).openapi('AddEmailAddress');

export const emailAddressParams = z.object({ id: z.uuid() });

export const confirmEmailAddressBody = z
  .strictObject({
    token: z.string().min(1).max(200).openapi({ description: 'The `token` of the link emailed to the address.' }),
  })
  .openapi('ConfirmEmailAddress');

export const confirmedEmailAddressSchema = z
  .object({ email: z.string().openapi({ format: 'email' }), status: z.literal('confirmed') })
  .openapi('ConfirmedEmailAddress');
