import { SETTINGS_SECTIONS } from './settings/sections';

/**
 * The dashboard's navigation, one list of groups: a new screen is one line here. A link lights up on
 * its own path and everything under it (`exact`: its own path only); where two links match, the
 * longer one is the current one.
 */
export type NavLink = { href: string; label: string; exact?: boolean };
export type NavGroup = { label: string; links: NavLink[] };

export const NAV_GROUPS: NavGroup[] = [
  { label: 'Overview', links: [{ href: '/dashboard', label: 'Overview', exact: true }] },
  {
    label: 'Messages',
    links: [
      { href: '/dashboard/messages', label: 'Messages' },
      { href: '/dashboard/messages/bulk', label: 'Bulk' },
    ],
  },
  {
    label: 'Phones',
    links: [
      { href: '/dashboard/phones', label: 'Phones' },
      { href: '/dashboard/groups', label: 'Groups' },
    ],
  },
  { label: 'Contacts', links: [{ href: '/dashboard/contacts', label: 'Contacts' }] },
  { label: 'Credits', links: [{ href: '/dashboard/credits', label: 'Credits' }] },
  {
    label: 'Automation',
    links: [
      { href: '/dashboard/automation', label: 'Automation' },
      { href: '/dashboard/opt-outs', label: 'Opt-outs' },
    ],
  },
  {
    label: 'Settings',
    links: [
      { href: '/dashboard/settings', label: 'Settings', exact: true },
      ...SETTINGS_SECTIONS.map(({ href, label }) => ({ href, label })),
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
