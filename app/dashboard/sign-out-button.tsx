'use client';

import { useRouter } from 'next/navigation';
import { signOut } from 'next-auth/react';
import { useState } from 'react';
import { Button } from '@/components/ui/button';

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
        onClick={async () => {
          setBusy(true);
          setFailed(false);
          try {
            await signOut({ redirect: false });
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
