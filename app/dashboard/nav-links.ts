import type { MemberRole } from '@/lib/members/role-names';
import { type Area, may } from '@/lib/members/roles';
import { SETTINGS_SECTIONS } from './settings/sections';

/**
 * The dashboard's navigation, one list of groups: a new screen is one line here. A link lights up on
 * its own path and everything under it (`exact`: its own path only); where two links match, the
 * longer one is the current one. `area`: what a member's role must read to be shown the link
 * (lib/members/roles.ts); none: every role.
 */
export type NavLink = { href: string; label: string; exact?: boolean; area?: Area };
export type NavGroup = { label: string; links: NavLink[] };

export const NAV_GROUPS: NavGroup[] = [
  { label: 'Overview', links: [{ href: '/dashboard', label: 'Overview', exact: true }] },
  {
    label: 'Messages',
    links: [
      { href: '/dashboard/messages', label: 'Messages', area: 'messages' },
      { href: '/dashboard/messages/bulk', label: 'Bulk', area: 'messages' },
    ],
  },
  {
    label: 'Phones',
    links: [
      { href: '/dashboard/phones', label: 'Phones', area: 'phones' },
      { href: '/dashboard/groups', label: 'Groups', area: 'groups' },
    ],
  },
  { label: 'Contacts', links: [{ href: '/dashboard/contacts', label: 'Contacts', area: 'contacts' }] },
  { label: 'Credits', links: [{ href: '/dashboard/credits', label: 'Credits', area: 'credits' }] },
  {
    label: 'Automation',
    links: [
      { href: '/dashboard/automation', label: 'Automation', area: 'automation' },
      { href: '/dashboard/opt-outs', label: 'Opt-outs', area: 'opt_outs' },
    ],
  },
  {
    label: 'Settings',
    links: [
      { href: '/dashboard/settings', label: 'Settings', exact: true },
      ...SETTINGS_SECTIONS.map(({ href, label, area }) => ({ href, label, ...(area ? { area } : {}) })),
    ],
  },
  { label: 'Reference', links: [{ href: '/docs', label: 'API reference' }] },
];

export const NAV_LINKS: NavLink[] = NAV_GROUPS.flatMap((group) => group.links);

function matches(link: NavLink, pathname: string): boolean {
  if (link.exact) return pathname === link.href;
  return pathname === link.href || pathname.startsWith(`${link.href}/`);
}

/** The link of the page at `pathname`: the longest that matches. */
export function currentLink(pathname: string): NavLink | undefined {
  let best: NavLink | undefined;
  for (const link of NAV_LINKS) {
    if (matches(link, pathname) && (!best || link.href.length > best.href.length)) best = link;
  }
  return best;
}

/**
 * The groups a role is shown: the links it may read (every link without a role: an API key's session
 * with no role), and no group left empty.
 */
export function navGroupsFor(role: MemberRole | null | undefined): NavGroup[] {
  if (!role) return NAV_GROUPS;
  return NAV_GROUPS.map((group) => ({
    ...group,
    links: group.links.filter((link) => !link.area || may(role, link.area, 'read')),
  })).filter((group) => group.links.length > 0);
}
