import { z } from '@/lib/zod';

/** A code of the authenticator (6 digits) or one of the recovery codes (`xxxxx-xxxxx`). */
export const secondFactorCode = z
  .string()
  .trim()
  .min(6)
  .max(32)
  .openapi({ example: '492039', description: 'A 6-digit code of the authenticator app, or a recovery code.' });

export const twoFactorCodeBody = z.strictObject({ code: secondFactorCode }).openapi('TwoFactorCodeRequest');

export const twoFactorStatusSchema = z
  .object({
    enabled: z.boolean().openapi({ description: 'Whether the signed-in member signs in with a second factor.' }),
    pending: z.boolean().openapi({ description: 'An enrolment was started and awaits its first code.' }),
    required: z.boolean().openapi({ description: 'The account requires two-factor sign-in of every member.' }),
    recovery_codes_left: z.number().int().openapi({ description: 'Recovery codes not used yet.' }),
  })
  .openapi('TwoFactorStatus');

export const twoFactorEnrolmentSchema = z
  .object({
    secret: z
      .string()
      .openapi({ example: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', description: 'The TOTP secret, base32.' }),
    otpauth_url: z.string().openapi({ description: 'The `otpauth://totp/…` URL an authenticator app reads.' }),
    qr_data_url: z.string().openapi({ description: 'The otpauth URL as a QR code: a `data:image/png;base64,…` URL.' }),
  })
  .openapi('TwoFactorEnrolment');

export const recoveryCodesSchema = z
  .object({
    recovery_codes: z
      .array(z.string())
      .length(10)
      .openapi({ description: 'Ten single-use codes, each opening one sign-in without the app. Shown this once.' }),
  })
  .openapi('TwoFactorRecoveryCodes');

export const securitySettingsSchema = z
  .object({
    require_two_factor: z.boolean().openapi({
      description:
        'Every member must sign in with a second factor. A member without one is signed in but may only enrol (or sign out) until they do.',
    }),
  })
  .openapi('SecuritySettings');

export const securitySettingsBody = z
  .strictObject({ require_two_factor: z.boolean() })
  .openapi('SecuritySettingsChange');

export type TwoFactorStatus = z.output<typeof twoFactorStatusSchema>;
export type TwoFactorEnrolment = z.output<typeof twoFactorEnrolmentSchema>;
export type RecoveryCodes = z.output<typeof recoveryCodesSchema>;
export type SecuritySettings = z.output<typeof securitySettingsSchema>;
