import { MEMBER_ROLES } from '@/db/schema';
import { z } from '@/lib/zod';

export const memberRole = z.enum(MEMBER_ROLES).openapi({
  description:
    '`owner` everything (an account keeps at least one); `admin` everything but ownership; `developer` keys, webhooks, integrations, automation, sending settings and messages; `operator` phones, groups, messages, opt-outs and contacts; `viewer` reads all but keys, webhooks and integrations.',
});

export const memberSchema = z
  .object({
    id: z.uuid(),
    email: z.string().openapi({ example: 'ana@example.com' }),
    role: memberRole,
    joined_at: z.iso.datetime(),
  })
  .openapi('Member');

export type MemberWire = z.infer<typeof memberSchema>;

export const memberListSchema = z
  .object({
    data: z.array(memberSchema).openapi({ description: 'Every member, the earliest joined first.' }),
    you: z
      .object({
        member_id: z.uuid().nullable().openapi({ description: 'Null for an API key (it is no member).' }),
        role: memberRole
          .nullable()
          .openapi({ description: 'What the caller may do; null for an API key without a role (everything).' }),
      })
      .openapi({ description: 'The caller.' }),
  })
  .openapi('MemberList');

export const memberParams = z.object({ id: z.uuid() });

export const updateMemberBody = z.strictObject({ role: memberRole }).openapi('UpdateMember');
