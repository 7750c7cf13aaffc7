'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { queryKeys } from '@/components/query-keys';
import { api } from '../api';
import { Button } from '../ui/button';
import { ConfirmDialog } from '../ui/confirm';
import { SecretOnce } from '../ui/secret-once';
import { Section } from '../ui/section';
import { ErrorState } from '../ui/states';
import { useRefresh } from '../use-refresh';

type TwilioSettings = { account_sid: string; has_auth_token: boolean };

/**
 * The Twilio-compatible API's credentials: the Account SID (always shown) and the Auth Token,
 * created or rotated here and shown once. `mayChange`: whether the signed-in role may change the
 * integrations (the button is left out otherwise).
 */
export function TwilioPanel({ mayChange }: { mayChange: boolean }) {
  const refresh = useRefresh();
  const settings = useQuery({
    queryKey: queryKeys.twilio.root,
    queryFn: () => api<TwilioSettings>('/api/v1/twilio'),
  });
  const [token, setToken] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const create = useMutation({
    meta: { success: 'Auth Token created' },
    mutationFn: () => api<{ account_sid: string; auth_token: string }>('/api/v1/twilio/auth-token', { method: 'POST' }),
    onSuccess: (answer) => {
      setConfirming(false);
      setToken(answer.auth_token);
      return refresh('twilio');
    },
  });
  const hasToken = settings.data?.has_auth_token === true;
  return (
    <Section title="Twilio compatibility">
      <p className="mb-4 text-sm text-slate-600">
        Code written for Twilio’s Messages API sends through your phones once its base URL points here (
        <code>client.api.baseUrl</code> in Node, <code>client.api.base_url</code> in Python). Use this Account SID and
        Auth Token as its credentials; a phone group’s MessagingServiceSid is on the Groups screen.
      </p>
      {settings.error && <ErrorState error={settings.error} />}
      {settings.data && (
        <dl className="mb-4 grid gap-1 text-sm sm:grid-cols-[max-content_1fr] sm:gap-x-4">
          <dt className="font-medium">Account SID</dt>
          <dd className="break-all font-mono">{settings.data.account_sid}</dd>
          <dt className="font-medium">Auth Token</dt>
          <dd>{hasToken ? 'Created (shown only once)' : 'Not created yet'}</dd>
        </dl>
      )}
      {token ? (
        <SecretOnce label="Your Twilio Auth Token" value={token} onDone={() => setToken(null)} />
      ) : (
        mayChange && (
          <Button variant="secondary" onClick={() => (hasToken ? setConfirming(true) : create.mutate())}>
            {hasToken ? 'Rotate the Auth Token' : 'Create an Auth Token'}
          </Button>
        )
      )}
      {create.error && !confirming && <ErrorState error={create.error} />}
      <ConfirmDialog
        open={confirming}
        title="Replace the Auth Token?"
        confirmLabel="Create new token"
        pending={create.isPending}
        onConfirm={() => create.mutate()}
        onCancel={() => setConfirming(false)}
      >
        The current token stops working at once, for requests and for signing callbacks.
        {create.error && <ErrorState error={create.error} />}
      </ConfirmDialog>
    </Section>
  );
}
