import type { Metadata } from 'next';
import Link from 'next/link';
import { DataSettingsPanel } from '@/components/settings/data-settings';

export const metadata: Metadata = { title: 'Data settings · Simgate' };

export default function DataSettingsPage() {
  return (
    <>
      <h1 className="text-2xl font-bold tracking-tight">Settings · Data</h1>
      <p className="mt-2 text-sm">
        <Link className="underline" href="/dashboard/settings">
          Back to Settings
        </Link>
      </p>
      <DataSettingsPanel />
    </>
  );
}
