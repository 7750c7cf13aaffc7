/**
 * The dashboard's navigation, one list: a new screen is one line here. `match` says which paths light
 * the link up (by default the link's own path and everything under it).
 */
export type NavLink = { href: string; label: string; exact?: boolean };

export const NAV_LINKS: NavLink[] = [
  { href: '/dashboard', label: 'Overview', exact: true },
  { href: '/dashboard/phones', label: 'Phones' },
  { href: '/dashboard/groups', label: 'Groups' },
  { href: '/dashboard/credits', label: 'Credits' },
  { href: '/dashboard/messages', label: 'Messages' },
  { href: '/dashboard/opt-outs', label: 'Opt-outs' },
  { href: '/dashboard/automation', label: 'Automation' },
  { href: '/dashboard/settings/api-keys', label: 'API keys' },
  { href: '/dashboard/settings/webhooks', label: 'Webhooks' },
  { href: '/dashboard/settings/sending', label: 'Sending' },
  { href: '/dashboard/settings', label: 'Settings', exact: true },
  { href: '/docs', label: 'API reference' },
];

export function isCurrent(link: NavLink, pathname: string): boolean {
  if (link.exact) return pathname === link.href;
  return pathname === link.href || pathname.startsWith(`${link.href}/`);
}
