import { emailAddress } from '@/lib/accounts/schemas';
import { memberRole } from '@/lib/members/schemas';
import { z } from '@/lib/zod';

const keyRole = memberRole.nullable().openapi({
  description:
    'What the key may do, as a member of this role may (Settings → Members shows the table); null: everything. A key with the role `viewer` reads and cannot send.',
});

export const createApiKeyBody = z
  .strictObject({
    name: z.string().trim().min(1).max(100).openapi({ example: 'Production backend' }),
    role: keyRole.optional(),
  })
  .openapi('CreateApiKeyRequest');

export const apiKeySchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    prefix: z.string().openapi({ example: 'sk_4Fh2a', description: 'The first 8 characters of the key.' }),
    created_at: z.iso.datetime(),
    last_used_at: z.iso.datetime().nullable().openapi({ description: 'Recorded at most once a minute.' }),
    revoked_at: z.iso.datetime().nullable(),
    role: keyRole,
    created_by: z.string().nullable().openapi({
      description:
        'The email of the member who created the key; null when a device, a key or a member since removed did.',
    }),
  })
  .openapi('ApiKey');

export const createdApiKeySchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    key: z.string().openapi({ example: 'sk_4Fh2a…', description: 'The key itself, shown this once.' }),
    prefix: z.string(),
    created_at: z.iso.datetime(),
    role: keyRole,
  })
  .openapi('CreatedApiKey');

export const apiKeyParams = z.object({ id: z.uuid() });

export const signInCodeBody = z.strictObject({ email: emailAddress }).openapi('SignInCodeRequest');

export const codeSentSchema = z
  .object({ status: z.literal('code_sent'), expires_at: z.iso.datetime() })
  .openapi('CodeSent');
