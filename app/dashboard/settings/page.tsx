import type { Metadata } from 'next';
import { headers } from 'next/headers';
import Link from 'next/link';
import { AuditLogPanel } from '@/components/settings/audit-log-panel';
import { SecurityPanel } from '@/components/settings/security-panel';
import { signedInAccount } from '@/lib/auth/current-account';
import { may } from '@/lib/members/roles';
import { SETTINGS_SECTIONS } from './sections';

export const metadata: Metadata = { title: 'Settings · Simgate' };

/** The sections the signed-in role may open (every one for a key's session without a role). */
export default async function SettingsPage() {
  const role = (await signedInAccount((await headers()).get('cookie')))?.role;
  const sections = SETTINGS_SECTIONS.filter((section) => !role || !section.area || may(role, section.area, 'read'));
  return (
    <>
      <h1 className="text-2xl font-bold tracking-tight">Settings</h1>
      <ul className="mt-2 space-y-2 text-sm">
        {sections.map((section) => (
          <li key={section.href}>
            <Link className="font-medium underline" href={section.href}>
              {section.label}: {section.summary}
            </Link>
          </li>
        ))}
      </ul>
      <SecurityPanel />
      <AuditLogPanel />
    </>
  );
}
