import { type CountryCode, isSupportedCountry, parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { z } from '@/lib/zod';

/** The E.164 form of a valid phone number, or undefined. Accepts only numbers written with a leading `+`. */
export function toE164(raw: string): string | undefined {
  const trimmed = raw.trim();
  if (!trimmed.startsWith('+') || trimmed.length > 20) return undefined;
  const parsed = parsePhoneNumberFromString(trimmed);
  return parsed?.isValid() ? parsed.number : undefined;
}

/** The ISO 3166-1 alpha-2 country of a valid E.164 number. */
export function countryOf(e164Number: string): CountryCode | undefined {
  return parsePhoneNumberFromString(e164Number)?.country;
}

export function isKnownCountryCode(code: string): boolean {
  return /^[A-Z]{2}$/.test(code) && isSupportedCountry(code);
}

/** A phone number in E.164 form, validated by libphonenumber and normalised (`+14155550100`). */
export const e164 = z
  .string()
  .max(32)
  .transform((value, ctx) => {
    const normalised = toE164(value);
    if (!normalised) {
      ctx.addIssue({ code: 'custom', message: 'not a valid E.164 phone number (e.g. +14155550100)' });
      return z.NEVER;
    }
    return normalised;
  })
  .openapi({ type: 'string', example: '+14155550100', description: 'Phone number in E.164 format.' });

/**
 * Whether `raw`, as a phone wrote it (E.164, or national digits in the country of `e164Number`),
 * is the number `e164Number`.
 */
export function isSameNumber(raw: string, e164Number: string): boolean {
  const country = countryOf(e164Number);
  const parsed = parsePhoneNumberFromString(raw.trim(), country ? { defaultCountry: country } : undefined);
  return parsed?.number === e164Number;
}

/**
 * An inbound sender as a phone reported it, stored in E.164 when it is a number (national digits
 * read in the receiving phone's country); short codes and alphanumeric sender ids stay as they are.
 */
export function senderAsStored(raw: string, receivingNumber: string): string {
  const country = countryOf(receivingNumber);
  const parsed = parsePhoneNumberFromString(raw.trim(), country ? { defaultCountry: country } : undefined);
  return parsed?.isValid() ? parsed.number : raw.trim();
}
