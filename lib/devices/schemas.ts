import { DEVICE_KINDS, DEVICE_STATUSES } from '@/db/schema';
import { emailAddress } from '@/lib/accounts/schemas';
import { countryOf, e164, isKnownCountryCode } from '@/lib/phone-number';
import { z } from '@/lib/zod';

export const verificationCode = z
  .string()
  .trim()
  .regex(/^\d{6}$/, 'a 6-digit code')
  .openapi({ example: '493817', description: 'The 6-digit code that was sent.' });

export const registerDeviceBody = z
  .strictObject({
    phone_number: e164,
    country_code: z.string().trim().toUpperCase().optional().openapi({
      example: 'US',
      description: 'ISO 3166-1 alpha-2 country of the number; when given it must match the number.',
    }),
    label: z.string().trim().min(1).max(100).optional().openapi({ example: 'Office Pixel' }),
  })
  .superRefine((body, ctx) => {
    if (body.country_code === undefined) return;
    const problem = countryCodeProblem(body.phone_number, body.country_code);
    if (problem) ctx.addIssue({ code: 'custom', path: ['country_code'], message: problem });
  })
  .openapi('RegisterDeviceRequest');

/** Why a given country code does not fit the number, if it does not. */
function countryCodeProblem(phoneNumber: string, countryCode: string): string | undefined {
  if (!isKnownCountryCode(countryCode)) return 'not an ISO 3166-1 alpha-2 country code';
  const numberCountry = countryOf(phoneNumber);
  if (numberCountry !== countryCode) {
    return `does not match the number, which belongs to ${numberCountry ?? 'no single country'}`;
  }
  return undefined;
}

export const registerDeviceResponse = z
  .object({
    device_id: z.uuid(),
    status: z.literal('pending_verification'),
    verification_expires_at: z.iso.datetime(),
  })
  .openapi('DeviceRegistration');

export const verifySimBody = z
  .strictObject({ device_id: z.uuid(), code: verificationCode })
  .openapi('VerifySimRequest');

export const verifySimResponse = z
  .object({
    device_id: z.uuid(),
    status: z.literal('verified'),
    device_key: z.string().openapi({ example: 'dk_3kV9…', description: 'The device key, shown this once.' }),
  })
  .openapi('VerifiedDevice');

export const bindRequestBody = z
  .strictObject({
    email: emailAddress.openapi({ description: 'The code is emailed to this address.' }),
  })
  .openapi('BindEmailRequest');

export const bindConfirmBody = z.strictObject({ code: verificationCode }).openapi('BindEmailConfirm');

export const bindConfirmResponse = z
  .object({ status: z.literal('activated'), account_id: z.uuid() })
  .openapi('DeviceActivated');

export const pairingCodeResponse = z
  .object({
    code: z.string().openapi({ example: '48151623', description: '8 digits, single use: type it in the app.' }),
    expires_at: z.iso.datetime().openapi({ description: 'The code works until then (10 minutes).' }),
    server_url: z.string().openapi({
      example: 'https://sms.example.com/api/mobile/v1',
      description: 'What to type as the server address in the app (Settings → Cloud server).',
    }),
  })
  .openapi('PairingCode');

export const simCheckBody = z.strictObject({ code: verificationCode }).openapi('SimCheckCode');

export const deviceIdParams = z.object({
  id: z.uuid().openapi({ description: 'Phone id.' }),
  device_id: z.uuid().openapi({ description: 'Device id.' }),
});

export const simCardSchema = z
  .object({
    slot: z.number().int().openapi({ description: 'SIM slot, from 1.' }),
    phone_number: z.string().nullable().openapi({ example: '****0100', description: 'As the app reports it.' }),
    carrier: z.string().nullable(),
  })
  .openapi('SimCard');

export const phoneDeviceSchema = z
  .object({
    id: z.uuid(),
    kind: z.enum(DEVICE_KINDS).openapi({
      description:
        '`simulator`: activated through /api/v1 (the device simulator); `app`: the SMSGate app, paired by code.',
    }),
    name: z.string().nullable().openapi({ description: 'The name the app reported (its phone model).' }),
    status: z.enum(DEVICE_STATUSES),
    current: z.boolean().openapi({ description: 'This device sends for the phone now.' }),
    key_prefix: z.string().nullable().openapi({ example: 'dk_3kV9x' }),
    sim_cards: z.array(simCardSchema),
    created_at: z.iso.datetime(),
    last_seen_at: z.iso.datetime().nullable().openapi({ description: 'Last request made with its credential.' }),
  })
  .openapi('PhoneDevice');
