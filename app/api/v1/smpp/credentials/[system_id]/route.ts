import { route } from '@/lib/http/route';
import { revokeSmppCredential } from '@/lib/smpp/credentials';
import { smppCredentialParams } from '@/lib/smpp/schemas';

export const DELETE = route(
  {
    auth: 'account',
    params: smppCredentialParams,
    doc: {
      operationId: 'revokeSmppCredential',
      summary: 'Revoke an SMPP login',
      description:
        'Deletes the login and closes its binds at once, on every instance. Receipts still queued for it expire. Audited.',
      tags: ['SMPP'],
      response: { description: 'Revoked.' },
      errors: ['NOT_FOUND', 'FORBIDDEN'],
    },
  },
  async ({ db, principal, params }) => {
    await revokeSmppCredential(db, principal.accountId, params.system_id);
  },
);
