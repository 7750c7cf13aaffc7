import { e164 } from '@/lib/phone-number';
import { z } from '@/lib/zod';

/** An RFC 3339 time with its offset, read as a Date. */
export const timestamp = z.iso
  .datetime({ offset: true })
  .transform((value) => new Date(value))
  .openapi({ type: 'string', format: 'date-time' });

// An unencoded `+` in a query string arrives as a space: `?phone=+1415…` reads ` 1415…` and an
// offset `+02:00` reads ` 02:00`. Neither a number nor an RFC 3339 time has a space of its own.
const restorePlus = (value: unknown) => (typeof value === 'string' ? value.replace(/ /g, '+') : value);

/** A phone number in a query string. */
export const queryPhone = z.preprocess(restorePlus, e164);
/** A time in a query string (`created_after=…`). */
export const queryTimestamp = z.preprocess(restorePlus, timestamp);
