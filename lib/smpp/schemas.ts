import { z } from '@/lib/zod';
import { SYSTEM_ID_PATTERN } from './limits';

const systemId = z
  .string()
  .regex(SYSTEM_ID_PATTERN, '1 to 16 letters, digits, _ or -')
  .openapi({ example: 'acme-kannel', description: 'The login an SMPP client binds with (16 characters at most).' });

export const createSmppCredentialBody = z
  .strictObject({
    system_id: systemId
      .optional()
      .openapi({ description: 'The login to create; by default `sg` and 10 random characters.' }),
  })
  .openapi('CreateSmppCredentialRequest');

export const smppCredentialSchema = z
  .object({
    system_id: z.string().openapi({ example: 'acme-kannel' }),
    created_at: z.iso.datetime(),
    last_bound_at: z.iso.datetime().nullable().openapi({ description: 'Its last successful bind.' }),
    locked_until: z.iso.datetime().nullable().openapi({
      description: 'Locked after 5 wrong passwords in a row: every bind is refused until then.',
    }),
  })
  .openapi('SmppCredential');

export const createdSmppCredentialSchema = smppCredentialSchema
  .extend({
    password: z.string().openapi({ example: 'h7KqP2xa', description: 'The password (8 characters), shown this once.' }),
  })
  .openapi('CreatedSmppCredential');

export const smppCredentialParams = z.object({ system_id: systemId });
