import type { Metadata } from 'next';
import Link from 'next/link';
import { AuditLogPanel } from '@/components/settings/audit-log-panel';
import { SecurityPanel } from '@/components/settings/security-panel';
import { SETTINGS_SECTIONS } from './sections';

export const metadata: Metadata = { title: 'Settings · Simgate' };

export default function SettingsPage() {
  return (
    <>
      <h1 className="text-2xl font-bold tracking-tight">Settings</h1>
      <ul className="mt-2 space-y-2 text-sm">
        {SETTINGS_SECTIONS.map((section) => (
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
