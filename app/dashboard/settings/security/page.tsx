import type { Metadata } from 'next';
import { headers } from 'next/headers';
import Link from 'next/link';
import { RequireTwoFactorPanel, TwoFactorPanel } from '@/components/settings/two-factor-panel';
import { signedInAccount } from '@/lib/auth/current-account';

export const metadata: Metadata = { title: 'Security settings · Simgate' };

export default async function SecuritySettingsPage() {
  const account = await signedInAccount((await headers()).get('cookie'));
  // A session a key opened names no member: two-factor sign-in is a member's own.
  const member = Boolean(account?.memberId);
  // An owner, or a session opened by a key without a role, which may do everything.
  const owner = account?.role === 'owner' || (!account?.memberId && !account?.role);
  return (
    <>
      <h1 className="text-2xl font-bold tracking-tight">Settings · Security</h1>
      <p className="mt-2 text-sm">
        <Link className="underline" href="/dashboard/settings">
          Back to Settings
        </Link>
      </p>
      <div className="mt-6 flex flex-col gap-6">
        {member ? (
          <TwoFactorPanel />
        ) : (
          <p className="text-sm text-slate-700">
            This session was opened with an API key. Two-factor sign-in belongs to members: sign in with an emailed code
            to add an authenticator app.
          </p>
        )}
        <RequireTwoFactorPanel owner={owner} />
      </div>
    </>
  );
}
