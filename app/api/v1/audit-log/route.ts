import { listAuditLog } from '@/lib/audit/list';
import { auditEntrySchema, auditQuery } from '@/lib/audit/schemas';
import { route } from '@/lib/http/route';
import { pageOf } from '@/lib/openapi/define';

export const GET = route(
  {
    auth: 'account',
    query: auditQuery,
    doc: {
      operationId: 'listAuditLog',
      summary: 'List the audit log',
      description:
        'Newest first: API keys created and revoked; webhooks created, changed, deleted, their secret revealed or rotated; credit transfers and operator grants; plan changes; phones added, removed and paired; devices revoked; sign-ins, failed sign-ins and "sign out everywhere". Each entry names the actor (the key prefix or the session email, never a secret) and the client address, and was written in the same transaction as the change; `member` names the member behind a dashboard session. `action` and `member_id` narrow the list.',
      tags: ['Audit log'],
      response: { description: 'A page of audit entries.', schema: pageOf(auditEntrySchema) },
    },
  },
  async ({ db, principal, query }) => listAuditLog(db, principal.accountId, query),
);
