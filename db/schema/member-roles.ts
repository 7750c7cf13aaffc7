// Plain constants (no drizzle), so that the dashboard can name the roles without the schema.

/**
 * What a member may do (lib/members/roles.ts holds the table of permissions): `owner` everything, including
 * members and deleting the account (an account always keeps one); `admin` everything but ownership;
 * `developer` keys, webhooks, automation, sending settings and messages; `operator` phones, groups,
 * messages, opt-outs and contacts; `viewer` reads only. Ordered from most to least.
 */
export const MEMBER_ROLES = ['owner', 'admin', 'developer', 'operator', 'viewer'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];
