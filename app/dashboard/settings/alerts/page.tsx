import type { Metadata } from 'next';
import Link from 'next/link';
import { AlertSettingsPanel } from '@/components/settings/alerts-settings';

export const metadata: Metadata = { title: 'Alert settings · Simgate' };

export default function AlertSettingsPage() {
  return (
    <>
      <h1 className="text-2xl font-bold tracking-tight">Settings · Alerts</h1>
      <p className="mt-2 text-sm">
        <Link className="underline" href="/dashboard/settings">
          Back to Settings
        </Link>
      </p>
      <AlertSettingsPanel />
    </>
  );
}
