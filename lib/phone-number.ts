import { type CountryCode, isSupportedCountry, parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { LRUCache } from 'lru-cache';
import { z } from '@/lib/zod';

type International = { e164: string | undefined; country: CountryCode | undefined };

/**
 * What libphonenumber made of a number written with a leading `+`, by its trimmed text. A parse
 * with validation costs about 16 µs, and a send asked it five times (`from` and `to` in the body's
 * schema and again in the send, then `to`'s country); the senders are an account's own few
 * phones, so they are parsed once, and a recipient once per request.
 */
const internationalNumbers = new LRUCache<string, International>({ max: 10_000 });

function international(trimmed: string): International {
  let known = internationalNumbers.get(trimmed);
  if (!known) {
    const parsed = parsePhoneNumberFromString(trimmed);
    known = { e164: parsed?.isValid() ? parsed.number : undefined, country: parsed?.country };
    internationalNumbers.set(trimmed, known);
  }
  return known;
}

/** The E.164 form of a valid phone number, or undefined. Accepts only numbers written with a leading `+`. */
export function toE164(raw: string): string | undefined {
  const trimmed = raw.trim();
  if (!trimmed.startsWith('+') || trimmed.length > 20) return undefined;
  return international(trimmed).e164;
}

/** The ISO 3166-1 alpha-2 country of a valid E.164 number. */
export function countryOf(e164Number: string): CountryCode | undefined {
  if (!e164Number.startsWith('+') || e164Number.length > 20) return parsePhoneNumberFromString(e164Number)?.country;
  return international(e164Number).country;
}

/**
 * Whether a valid E.164 number is premium-rate or shared-cost (libphonenumber's full metadata): a
 * text to one may cost the sender more than an ordinary SMS, or earn its owner money.
 */
export function isPremiumRate(e164Number: string): boolean {
  const type = parsePhoneNumberFromString(e164Number)?.getType();
  return type === 'PREMIUM_RATE' || type === 'SHARED_COST';
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
