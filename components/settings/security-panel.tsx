'use client';

import { useMutation } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { Button } from '../ui/button';
import { ConfirmDialog } from '../ui/confirm';
import { Section } from '../ui/section';
import { ErrorState } from '../ui/states';
import { endSessionsAndSignOut } from './sign-out';

export function SecurityPanel() {
  const router = useRouter();
  const [confirming, setConfirming] = useState(false);
  const signOutEverywhere = useMutation({
    mutationFn: endSessionsAndSignOut,
    onSuccess: () => {
      router.replace('/sign-in');
      router.refresh();
    },
  });

  return (
    <Section title="Security">
      <div className="flex flex-wrap items-center justify-between gap-4">
        <p className="max-w-prose text-sm text-slate-700">
          Ends the dashboard session of every browser signed in to this account, this one included, and makes any copy
          of their session cookies useless. Signing out does the same. API keys keep working.
        </p>
        <Button variant="danger" onClick={() => setConfirming(true)}>
          Sign out everywhere
        </Button>
      </div>
      <ConfirmDialog
        open={confirming}
        title="Sign out everywhere?"
        confirmLabel="Sign out everywhere"
        pending={signOutEverywhere.isPending}
        onConfirm={() => signOutEverywhere.mutate()}
        onCancel={() => {
          setConfirming(false);
          signOutEverywhere.reset();
        }}
      >
        Every browser signed in to this account, this one included, goes back to the sign-in page.
        {signOutEverywhere.error && <ErrorState error={signOutEverywhere.error} />}
      </ConfirmDialog>
    </Section>
  );
}
