'use client';

import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { endSessionsAndSignOut } from '@/components/settings/sign-out';
import { Button } from '@/components/ui/button';

/** Signing out ends every session of the account (a session cannot be ended alone): the title says so. */
export function SignOutButton() {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState(false);
  return (
    <div className="flex items-center gap-3">
      {failed && (
        <p role="alert" className="text-sm text-red-700">
          Signing out failed. Try again.
        </p>
      )}
      <Button
        variant="secondary"
        disabled={busy}
        aria-busy={busy}
        title="Signs this account out of every browser"
        onClick={async () => {
          setBusy(true);
          setFailed(false);
          try {
            await endSessionsAndSignOut();
            router.replace('/sign-in');
            router.refresh();
          } catch {
            setFailed(true);
            setBusy(false);
          }
        }}
      >
        {busy ? 'Signing out…' : 'Sign out'}
      </Button>
    </div>
  );
}
