import { OPT_OUT_SOURCES } from '@/db/schema';
import { MAX_CONTENT_LENGTH } from '@/lib/messages/limits';
import { pageQuery } from '@/lib/pagination';
import { e164 } from '@/lib/phone-number';
import { z } from '@/lib/zod';
import { START_WORDS, STOP_WORDS } from './words';

export const optOutSchema = z
  .object({
    phone: z.string().openapi({ example: '+14155550123', description: 'The number that opted out.' }),
    source: z.enum(OPT_OUT_SOURCES).openapi({
      description: '`inbound`: it texted a stop word to one of your phones; `manual`: added through the API.',
    }),
    created_at: z.iso.datetime(),
  })
  .openapi('OptOut');

export type OptOutWire = z.infer<typeof optOutSchema>;

export const addOptOutBody = z.strictObject({ phone: e164 }).openapi('AddOptOut');

// An unencoded `+` in a path arrives as a space, as in query strings.
export const optOutParams = z.object({
  phone: z
    .preprocess((value) => (typeof value === 'string' ? value.replace(/ /g, '+') : value), e164)
    .openapi({
      type: 'string',
      description: 'The opted-out number, E.164 (`+` may be sent as `%2B`).',
    }),
});

export const optOutListQuery = pageQuery;

export const optOutSettingsSchema = z
  .object({
    confirmation_reply: z.string().nullable().openapi({
      description:
        'Texted back from the receiving phone when a number opts out (charged like any message), as an automatic SMS: counted in `AUTO_REPLY_LIMIT` and sent only where automatic SMS may go (countries, premium-rate numbers); null sends nothing.',
      example: 'You have been unsubscribed. Reply START to subscribe again.',
    }),
    stop_words: z.array(z.string()).openapi({ description: 'Whole-message words that opt a number out.' }),
    start_words: z.array(z.string()).openapi({ description: 'Whole-message words that opt it back in.' }),
  })
  .openapi('OptOutSettings');

export const optOutSettingsBody = z
  .strictObject({
    confirmation_reply: z.string().trim().min(1).max(MAX_CONTENT_LENGTH).nullable(),
  })
  .openapi('UpdateOptOutSettings');

export const OPT_OUT_WORDS = { stop_words: [...STOP_WORDS], start_words: [...START_WORDS] };

export const optOutEventData = z
  .object({
    phone: z.string().openapi({ description: 'The number that opted out or back in.' }),
    account_phone: z.string().nullable().openapi({ description: 'Your phone it texted (null when set by hand).' }),
    source: z.enum(OPT_OUT_SOURCES),
    at: z.iso.datetime(),
  })
  .openapi('RecipientOptEventData', { description: 'A number opted out of (or back into) your messages.' });
