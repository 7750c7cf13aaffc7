import { MEMBER_ROLES } from '@/db/schema';
import { emailAddress } from '@/lib/accounts/schemas';
import { pageQuery } from '@/lib/pagination';
import { z } from '@/lib/zod';

/** How long an invitation's link works. */
export const INVITATION_LIFETIME_DAYS = 7;
/** Invitations an account may send per rolling hour (re-sending one counts too). */
export const INVITATIONS_PER_HOUR = 30;

export const memberRole = z.enum(MEMBER_ROLES).openapi({
  description:
    '`owner` everything (an account keeps at least one); `admin` everything but ownership; `developer` keys, webhooks, integrations, automation, sending settings and messages; `operator` phones, groups, messages, opt-outs and contacts; `viewer` reads all but keys, webhooks and integrations.',
});

export const INVITATION_STATUSES = ['pending', 'expired', 'accepted', 'revoked'] as const;

export const invitationSchema = z
  .object({
    id: z.uuid(),
    email: z.string().openapi({ example: 'teammate@example.com' }),
    role: memberRole,
    status: z.enum(INVITATION_STATUSES).openapi({
      description:
        '`pending` until accepted, revoked or past `expires_at` (`expired`: inviting the email again sends a fresh link).',
    }),
    expires_at: z.iso.datetime(),
    created_at: z.iso.datetime(),
  })
  .openapi('Invitation');

export type InvitationWire = z.infer<typeof invitationSchema>;

export const createInvitationBody = z
  .strictObject({ email: emailAddress, role: memberRole })
  .openapi('CreateInvitationRequest');

export const invitationParams = z.object({ id: z.uuid() });

export const invitationListQuery = pageQuery;

/** A link's token: 32 random bytes, base64url. Anything else names no invitation. */
export const invitationToken = z
  .string()
  .regex(/^[A-Za-z0-9_-]{43}$/, 'not an invitation token')
  .openapi({ description: 'The token of the emailed link (`/invite/<token>`).' });

export const acceptInvitationBody = z.strictObject({ token: invitationToken }).openapi('AcceptInvitationRequest');

export const membershipSchema = z
  .object({
    account_id: z.uuid(),
    member_id: z.uuid(),
    role: memberRole,
    account_email: z.string().openapi({ description: 'The email the account was activated with: its name.' }),
    current: z.boolean().openapi({ description: 'The account this session is signed in to.' }),
  })
  .openapi('Membership');

export type MembershipWire = z.infer<typeof membershipSchema>;

export const membershipListSchema = z.object({ data: z.array(membershipSchema) }).openapi('Memberships');

export const switchAccountBody = z
  .strictObject({
    account_id: z.uuid(),
    totp: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .describe(
        'A code of the authenticator of your membership of that account, or one of its recovery codes: required when that membership signs in with a second factor.',
      ),
  })
  .openapi('SwitchAccountRequest');

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
