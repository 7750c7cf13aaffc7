'use client';

import { useState } from 'react';
import { api, errorMessage } from '@/components/api';
import { Button } from '@/components/ui/button';

type State = { kind: 'idle' } | { kind: 'busy' } | { kind: 'done'; email: string } | { kind: 'error'; message: string };

export function ConfirmEmailButton({ token }: { token: string }) {
  const [state, setState] = useState<State>({ kind: 'idle' });
  const confirm = async () => {
    setState({ kind: 'busy' });
    try {
      const answer = await api<{ email: string }>('/api/v1/email-addresses/confirm', { body: { token } });
      setState({ kind: 'done', email: answer.email });
    } catch (error) {
      setState({ kind: 'error', message: errorMessage(error) });
    }
  };
  if (state.kind === 'done') {
    return (
      <p role="status" className="mt-6 rounded-md border border-green-200 bg-green-50 p-3 text-sm text-green-900">
        Confirmed: {state.email} will receive the messages the account forwards.
      </p>
    );
  }
  return (
    <div className="mt-6 space-y-3">
      <Button onClick={confirm} disabled={state.kind === 'busy'}>
        {state.kind === 'busy' ? 'Confirming…' : 'Confirm forwarding'}
      </Button>
      {state.kind === 'error' && (
        <p role="alert" className="text-sm text-red-800">
          {state.message}
        </p>
      )}
    </div>
  );
}
