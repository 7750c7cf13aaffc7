import type { Metadata } from 'next';
import Link from 'next/link';
import { AuditLogPanel } from '@/components/settings/audit-log-panel';
import { SecurityPanel } from '@/components/settings/security-panel';

export const metadata: Metadata = { title: 'Settings · Simgate' };

export default function SettingsPage() {
  return (
    <>
      <h1 className="text-2xl font-bold tracking-tight">Settings</h1>
      <p className="mt-2 text-sm">
        <Link className="font-medium underline" href="/dashboard/settings/sending">
          Sending: quiet hours, automatic retry, allowed countries
        </Link>
      </p>
      <p className="mt-2 text-sm">
        <Link className="font-medium underline" href="/dashboard/settings/alerts">
          Alerts: phones offline or low on battery, stalled queues, low credits, failing webhooks
        </Link>
      </p>
      <p className="mt-2 text-sm">
        <Link className="font-medium underline" href="/dashboard/settings/data">
          Data: how long message text is kept
        </Link>
      </p>
      <SecurityPanel />
      <AuditLogPanel />
    </>
  );
}
