import type { Metadata } from 'next';
import Link from 'next/link';
import { SendingSettingsPanel } from '@/components/settings/sending-settings';

export const metadata: Metadata = { title: 'Sending settings · Simgate' };

export default function SendingSettingsPage() {
  return (
    <>
      <h1 className="text-2xl font-bold tracking-tight">Settings · Sending</h1>
      <p className="mt-2 text-sm">
        <Link className="underline" href="/dashboard/settings">
          Back to Settings
        </Link>
      </p>
      <SendingSettingsPanel />
    </>
  );
}
