import { MEMBER_ROLES, type MemberRole } from '@/db/schema/member-roles';

/**
 * The one table of what each role may do. The API is split into areas; a role may read an area, or
 * read and change it (`write`), or neither. Routes name their area in lib/members/route-areas.ts; the
 * route wrapper refuses a browser session, or an API key with a role, whose role lacks the access
 * (403 FORBIDDEN naming the roles that have it). Settings → Members shows this table.
 */
export const AREAS = [
  'messages', // sends, bulks, conversations, the message list
  'phones', // phones, their settings, SIM checks, pauses
  'groups', // phone groups
  'opt_outs',
  'contacts',
  'automation', // inbound rules, email-to-SMS addresses
  'sending', // Settings → Sending
  'alerts', // Settings → Alerts and the open alerts
  'credits', // the balance and the ledger (read); transfers between groups (write)
  'stats',
  'audit', // the audit log
  'data', // Settings → Data: retention, exports
  'api_keys', // the account's API keys
  'webhooks',
  'integrations', // credentials of the other APIs: SMSGate, Twilio, SMPP, email
  'members', // members and invitations
  'account', // the account itself: ownership, deleting it
] as const;
export type Area = (typeof AREAS)[number];
export type Access = 'read' | 'write';

const ALL_WRITE = Object.fromEntries(AREAS.map((area) => [area, 'write'])) as Record<Area, Access>;
const SECRET_AREAS: readonly Area[] = ['api_keys', 'webhooks', 'integrations'];

/** Per role, per area: what it may do; an area left out is closed to the role. */
export const ROLE_ACCESS: Readonly<Record<MemberRole, Readonly<Partial<Record<Area, Access>>>>> = {
  owner: ALL_WRITE,
  admin: { ...ALL_WRITE, account: 'read' },
  developer: {
    messages: 'write',
    phones: 'read',
    groups: 'read',
    opt_outs: 'read',
    contacts: 'read',
    automation: 'write',
    sending: 'write',
    alerts: 'read',
    credits: 'read',
    stats: 'read',
    audit: 'read',
    data: 'read',
    api_keys: 'write',
    webhooks: 'write',
    integrations: 'write',
    members: 'read',
    account: 'read',
  },
  operator: {
    messages: 'write',
    phones: 'write',
    groups: 'write',
    opt_outs: 'write',
    contacts: 'write',
    automation: 'read',
    sending: 'read',
    alerts: 'read',
    credits: 'read',
    stats: 'read',
    audit: 'read',
    data: 'read',
    members: 'read',
    account: 'read',
  },
  // Reads everything but the areas that hold or make credentials.
  viewer: Object.fromEntries(
    AREAS.filter((area) => !SECRET_AREAS.includes(area)).map((area) => [area, 'read']),
  ) as Partial<Record<Area, Access>>,
};

/** Whether `role` may `access` the `area`: write implies read. */
export function may(role: MemberRole, area: Area, access: Access): boolean {
  const granted = ROLE_ACCESS[role][area];
  return granted === 'write' || (granted === 'read' && access === 'read');
}

/** The roles that may, most powerful last (the error names the least one needed first). */
export function rolesThatMay(area: Area, access: Access): MemberRole[] {
  return [...MEMBER_ROLES].reverse().filter((role) => may(role, area, access));
}

/** A role ranks at or above another (owner highest): a member grants only roles at or below their own. */
export function ranksAtLeast(role: MemberRole, other: MemberRole): boolean {
  return MEMBER_ROLES.indexOf(role) <= MEMBER_ROLES.indexOf(other);
}

/** How Settings → Members names each area in the table of roles. */
export const AREA_LABELS: Record<Area, string> = {
  messages: 'Messages',
  phones: 'Phones',
  groups: 'Phone groups',
  opt_outs: 'Opt-outs',
  contacts: 'Contacts',
  automation: 'Automation',
  sending: 'Sending settings',
  alerts: 'Alerts',
  credits: 'Credits',
  stats: 'Statistics',
  audit: 'Audit log',
  data: 'Data settings',
  api_keys: 'API keys',
  webhooks: 'Webhooks',
  integrations: 'Integrations (SMSGate, Twilio, SMPP, email)',
  members: 'Members',
  account: 'The account (ownership)',
};
