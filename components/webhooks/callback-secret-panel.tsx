'use client';

import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../api';
import { Button } from '../ui/button';
import { ConfirmDialog } from '../ui/confirm';
import { SecretOnce } from '../ui/secret-once';
import { Section } from '../ui/section';
import { ErrorState } from '../ui/states';

/** The secret that signs per-message status callbacks (`status_callback_url`), created or rotated here and shown once. */
export function CallbackSecretPanel() {
  const [secret, setSecret] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const rotate = useMutation({
    mutationFn: () => api<{ secret: string }>('/api/v1/webhooks/callback-secret', { method: 'POST' }),
    onSuccess: (answer) => {
      setConfirming(false);
      setSecret(answer.secret);
    },
  });
  return (
    <Section title="Status callbacks">
      <p className="mb-4 text-sm text-slate-600">
        A send may name a <code>status_callback_url</code>: that message’s state events are posted there, signed with
        this secret (Standard Webhooks), retried like webhooks. Creating a new secret keeps the old one signing for 24
        hours.
      </p>
      {secret ? (
        <SecretOnce label="Status callback secret" value={secret} onDone={() => setSecret(null)} />
      ) : (
        <Button variant="secondary" onClick={() => setConfirming(true)}>
          Create or rotate the callback secret
        </Button>
      )}
      <ConfirmDialog
        open={confirming}
        title="Create a new callback secret?"
        confirmLabel="Create secret"
        pending={rotate.isPending}
        onConfirm={() => rotate.mutate()}
        onCancel={() => setConfirming(false)}
      >
        Receivers must switch to it within 24 hours, when the previous secret stops signing.
        {rotate.error && <ErrorState error={rotate.error} />}
      </ConfirmDialog>
    </Section>
  );
}
