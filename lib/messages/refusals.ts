import { DomainError } from '@/lib/errors';
import { countryOf } from '@/lib/phone-number';

/**
 * What the screen stage says when it refuses a recipient, written once: a single send answers it as
 * its problem's detail, a bulk as the recipient's `rejected[].detail`, whichever path screened it.
 */
export function optedOutText(to: string): string {
  return `${to} has opted out of your messages (it texted a stop word).`;
}

export function countryNotAllowedText(to: string): string {
  const country = countryOf(to) ?? 'unknown';
  return `${to} is in ${country}, which is not among the countries this account (or group) allows.`;
}

export function optedOut(to: string): DomainError {
  return new DomainError('RECIPIENT_OPTED_OUT', optedOutText(to), { extra: { to } });
}

export function countryNotAllowed(to: string): DomainError {
  return new DomainError('RECIPIENT_COUNTRY_NOT_ALLOWED', countryNotAllowedText(to), {
    extra: { to, country: countryOf(to) ?? 'unknown' },
  });
}
