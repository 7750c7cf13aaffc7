import { AUDIT_ACTIONS, AUDIT_ACTOR_KINDS } from '@/db/schema';
import { pageQuery } from '@/lib/pagination';
import { z } from '@/lib/zod';

export const auditQuery = pageQuery.extend({
  action: z.enum(AUDIT_ACTIONS).optional().openapi({ description: 'Only entries of this action.' }),
  member_id: z.uuid().optional().openapi({ description: 'Only entries of this member’s dashboard sessions.' }),
});

export const auditEntrySchema = z
  .object({
    id: z.uuid(),
    action: z.enum(AUDIT_ACTIONS),
    actor: z.object({
      kind: z.enum(AUDIT_ACTOR_KINDS),
      label: z.string().nullable().openapi({ description: 'The key prefix (sk_…, dk_…) or the session’s email.' }),
    }),
    member: z
      .object({
        id: z.uuid(),
        email: z.string().nullable().openapi({ description: 'The member’s email (as it was, once they have left).' }),
      })
      .nullable()
      .openapi({ description: 'The member behind a dashboard session; null for a key, a device or the operator.' }),
    ip: z.string().nullable().openapi({ description: 'The client address, as per-IP limits see it.' }),
    target: z.string().nullable().openapi({ description: 'The key, webhook, phone or group acted on.' }),
    details: z.record(z.string(), z.unknown()),
    created_at: z.iso.datetime(),
  })
  .openapi('AuditEntry');
