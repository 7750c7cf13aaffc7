import type { Area } from '@/lib/members/roles';

/**
 * The sections of Settings, one list: the Settings page links each, in this order. A new section is a
 * line here and its page (docs/architecture.md, "Adding a settings section"). `area`: the part of the
 * role table (lib/members/roles.ts) a role must read to see the section; none: every role.
 */
export type SettingsSection = { href: string; label: string; summary: string; area?: Area };

export const SETTINGS_SECTIONS: SettingsSection[] = [
  {
    href: '/dashboard/settings/members',
    area: 'members',
    label: 'Members',
    summary: 'who may use the account, their roles, and invitations',
  },
  { href: '/dashboard/settings/api-keys', area: 'api_keys', label: 'API keys', summary: 'keys for your integrations' },
  {
    href: '/dashboard/settings/security',
    label: 'Security',
    summary: 'two-factor sign-in, and requiring it of every member',
  },
  { href: '/dashboard/settings/webhooks', area: 'webhooks', label: 'Webhooks', summary: 'where events are delivered' },
  {
    href: '/dashboard/settings/sending',
    area: 'sending',
    label: 'Sending',
    summary: 'quiet hours, automatic retry, allowed countries',
  },
  {
    href: '/dashboard/settings/alerts',
    area: 'alerts',
    label: 'Alerts',
    summary: 'phones offline or low on battery, stalled queues, low credits, failing webhooks',
  },
  { href: '/dashboard/settings/data', area: 'data', label: 'Data', summary: 'how long message text is kept' },
  {
    href: '/dashboard/settings/email-to-sms',
    area: 'integrations',
    label: 'Email to SMS',
    summary: 'how a mail to a number becomes an SMS',
  },
];
