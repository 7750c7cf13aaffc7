import { route } from '@/lib/http/route';
import { pageOf } from '@/lib/openapi/define';
import { pageQuery } from '@/lib/pagination';
import { createSmppCredential, listSmppCredentials } from '@/lib/smpp/credentials';
import { createdSmppCredentialSchema, createSmppCredentialBody, smppCredentialSchema } from '@/lib/smpp/schemas';

export const POST = route(
  {
    auth: 'account',
    body: createSmppCredentialBody,
    status: 201,
    doc: {
      operationId: 'createSmppCredential',
      summary: 'Create an SMPP login',
      description:
        'A `system_id` (yours, or a generated one) and an 8-character password, shown this once, with which an SMPP 3.4 client binds to the SMPP server (docs/smpp.md). At most 20 per account; binds open at once are limited by the plan. Audited.',
      tags: ['SMPP'],
      response: { description: 'The login and its password, shown once.', schema: createdSmppCredentialSchema },
      errors: ['DUPLICATE_NAME', 'PLAN_LIMIT_REACHED', 'FORBIDDEN'],
    },
  },
  async ({ db, principal, body }) => createSmppCredential(db, principal.accountId, body),
);

export const GET = route(
  {
    auth: 'account',
    query: pageQuery,
    doc: {
      operationId: 'listSmppCredentials',
      summary: 'List SMPP logins',
      description: 'Newest first. Never a password or its hash.',
      tags: ['SMPP'],
      response: { description: 'A page of logins.', schema: pageOf(smppCredentialSchema) },
    },
  },
  async ({ db, principal, query }) => listSmppCredentials(db, principal.accountId, query),
);
