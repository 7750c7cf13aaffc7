import type { Metadata } from 'next';
import Link from 'next/link';
import { EmailSmsSettingsPanel } from '@/components/settings/email-sms-settings';

export const metadata: Metadata = { title: 'Email to SMS settings · Simgate' };

export default function EmailSmsSettingsPage() {
  return (
    <>
      <h1 className="text-2xl font-bold tracking-tight">Settings · Email to SMS</h1>
      <p className="mt-2 text-sm">
        <Link className="underline" href="/dashboard/settings">
          Back to Settings
        </Link>
      </p>
      <EmailSmsSettingsPanel />
    </>
  );
}
