'use client';

import { useRouter } from 'next/navigation';
import { TwoFactorPanel } from '@/components/settings/two-factor-panel';

/** What the dashboard shows a member who owes the second factor their account requires: only the enrolment. */
export function TwoFactorRequired() {
  const router = useRouter();
  return (
    <main className="mt-6 max-w-3xl space-y-6">
      <h1 className="text-2xl font-bold tracking-tight">Two-factor sign-in required</h1>
      <p role="alert" className="rounded-md border border-amber-300 bg-amber-50 p-4 text-sm text-amber-900">
        This account requires two-factor sign-in. Add an authenticator app to use the dashboard.
      </p>
      <TwoFactorPanel onEnabled={() => router.refresh()} />
    </main>
  );
}
