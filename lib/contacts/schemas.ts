import { CONTACT_LIMITS } from '@/db/schema/contacts';
import { pageQuery } from '@/lib/pagination';
import { e164 } from '@/lib/phone-number';
import { z } from '@/lib/zod';

export { CONTACT_LIMITS };

/** Most data rows one import takes, and most bytes of its CSV. */
export const MAX_IMPORT_ROWS = 50_000;
export const MAX_IMPORT_BYTES = 5 * 1024 * 1024;
/** Invalid rows an import's answer lists (all are counted in `invalid_count`). */
export const MAX_REPORTED_INVALID = 100;

export const TAG_PATTERN = /^[a-z0-9_-]+$/;

export const contactTag = z
  .string()
  .trim()
  .toLowerCase()
  .min(1)
  .max(CONTACT_LIMITS.tag)
  .regex(TAG_PATTERN, 'letters, digits, `_` or `-` only')
  .openapi({ example: 'customers' });

const tags = z
  .array(contactTag)
  .max(CONTACT_LIMITS.tags)
  .transform((list) => [...new Set(list)])
  .openapi({
    description: `Up to ${CONTACT_LIMITS.tags} tags of 1 to ${CONTACT_LIMITS.tag} characters: lower-case letters, digits, \`_\` and \`-\` (upper case is lowered; repeats kept once). A bulk message may target \`contact_tags\`.`,
  });

const name = z
  .string()
  .trim()
  .max(CONTACT_LIMITS.name)
  .transform((value) => value || null)
  .nullable()
  .openapi({ example: 'Ada Lovelace', description: `Up to ${CONTACT_LIMITS.name} characters; empty or null: none.` });

const notes = z
  .string()
  .trim()
  .max(CONTACT_LIMITS.notes)
  .transform((value) => value || null)
  .nullable()
  .openapi({ description: `Free text, up to ${CONTACT_LIMITS.notes} characters; empty or null: none.` });

export const contactSchema = z
  .object({
    id: z.uuid(),
    name: z.string().nullable(),
    number: z.string().openapi({ example: '+14155550123', description: 'E.164, unique in the account.' }),
    tags: z.array(z.string()),
    notes: z.string().nullable(),
    opted_out: z.boolean().openapi({ description: 'Whether the number has opted out of your messages (STOP).' }),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .openapi('Contact');

export type ContactWire = z.infer<typeof contactSchema>;

/** What a message, a conversation or a webhook payload shows of its counterpart's contact. */
export const contactRefSchema = z
  .object({ id: z.uuid(), name: z.string().nullable() })
  .openapi('ContactRef', { description: 'The contact saved for the counterpart number.' });

export type ContactRef = z.infer<typeof contactRefSchema>;

export const createContactBody = z
  .strictObject({
    name: name.optional(),
    number: e164.openapi({ description: 'E.164; unique in the account (409 CONFLICT naming `number`).' }),
    tags: tags.optional(),
    notes: notes.optional(),
  })
  .openapi('CreateContact');

export const updateContactBody = z
  .strictObject({ name: name.optional(), number: e164.optional(), tags: tags.optional(), notes: notes.optional() })
  .openapi('UpdateContact');

export type ContactInput = z.output<typeof updateContactBody>;

export const contactParams = z.object({ id: z.uuid().openapi({ description: 'Contact id.' }) });

export const contactListQuery = pageQuery.extend({
  search: z.string().trim().min(1).max(100).optional().openapi({
    description:
      'Contacts whose name contains it (any case), or whose number starts with it (digits, with or without `+`).',
  }),
  tag: contactTag.optional().openapi({ description: 'Only contacts carrying this tag.' }),
});

export type ContactListQuery = z.output<typeof contactListQuery>;

export const importQuery = z.object({
  dry_run: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true')
    .openapi({ description: '`true`: check the file and answer what an import would do, writing nothing.' }),
});

const invalidRow = z
  .object({
    row: z.number().int().openapi({ description: 'The record’s position in the file, the header being row 1.' }),
    number: z.string().optional().openapi({ description: 'The number as the file wrote it.' }),
    reason: z.string().openapi({ example: 'not a valid E.164 phone number' }),
  })
  .openapi('ContactImportInvalidRow');

export type InvalidRow = z.infer<typeof invalidRow>;

const invalidList = z.array(invalidRow).openapi({
  description: `The first ${MAX_REPORTED_INVALID} rows not imported, with why.`,
});

export const importPreviewSchema = z
  .object({
    dry_run: z.literal(true),
    valid: z.number().int().openapi({ description: 'Rows that would be imported.' }),
    invalid: invalidList,
    invalid_count: z.number().int(),
    would_create: z.number().int(),
    would_update: z.number().int().openapi({ description: 'Rows whose number is a contact already.' }),
  })
  .openapi('ContactImportPreview');

export const importResultSchema = z
  .object({
    created: z.number().int(),
    updated: z.number().int(),
    invalid: invalidList,
    invalid_count: z.number().int(),
  })
  .openapi('ContactImportResult');

export const importBodyDoc = z.string().openapi({
  description: 'A CSV file with a header row (see the operation).',
  example: 'name,number,tags,notes\nAda Lovelace,+14155550123,customers;vip,Met at the fair\n',
});
