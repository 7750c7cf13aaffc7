'use client';

import { useRouter } from 'next/navigation';
import { signIn } from 'next-auth/react';
import { type FormEvent, useState } from 'react';
import { api } from '@/components/api';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { problemDetail, type Status, StatusLine, signInError } from '../../sign-in/sign-in-form';

/**
 * Sign-in by a code emailed to the invited address, with the link's token: the account is joined as the
 * code is checked (lib/auth/sign-in.ts), and the session opens on it.
 */
export function JoinForm({ token, email }: { token: string; email: string }) {
  const router = useRouter();
  const [sent, setSent] = useState(false);
  const [code, setCode] = useState('');
  const [status, setStatus] = useState<Status>({ kind: 'idle' });
  const busy = status.kind === 'busy';

  async function sendCode() {
    setStatus({ kind: 'busy', label: 'Sending a code…' });
    try {
      await api('/api/v1/auth/sign-in/request-code', { body: { email } });
      setSent(true);
      setCode('');
      setStatus({ kind: 'idle' });
    } catch (error) {
      setStatus({ kind: 'error', message: problemDetail(error) });
    }
  }

  async function join(event: FormEvent) {
    event.preventDefault();
    setStatus({ kind: 'busy', label: 'Joining…' });
    const result = await signIn('email-code', { email, code: code.trim(), invitation: token, redirect: false });
    if (result?.ok && !result.error) {
      router.replace('/dashboard');
      router.refresh();
      return;
    }
    setStatus({ kind: 'error', message: signInError(result?.error, 'That code is not right. Check the email.') });
  }

  return (
    <section aria-labelledby="join" className="mt-8 rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
      <h2 id="join" className="mb-4 text-lg font-semibold">
        Sign in as {email}
      </h2>
      {!sent ? (
        <div className="space-y-4">
          <p className="text-sm text-slate-700">We email a one-time code to {email}; no password is needed.</p>
          <StatusLine status={status} />
          <Button disabled={busy} onClick={sendCode}>
            Email me a code
          </Button>
        </div>
      ) : (
        <form onSubmit={join} className="space-y-4" aria-busy={busy}>
          <p role="status" className="text-sm text-slate-700">
            A 6-digit code is on its way to <strong>{email}</strong>. It is valid for 10 minutes.
          </p>
          <Field
            id="join-code"
            label="Code"
            inputMode="numeric"
            autoComplete="one-time-code"
            pattern="\d{6}"
            maxLength={6}
            required
            autoFocus
            value={code}
            onChange={(e) => setCode(e.target.value.replace(/\D/g, ''))}
            hint="The 6 digits from the email."
          />
          <StatusLine status={status} />
          <div className="flex flex-wrap gap-2">
            <Button type="submit" disabled={busy || code.length !== 6}>
              Join the account
            </Button>
            <Button variant="secondary" disabled={busy} onClick={sendCode}>
              Send a new code
            </Button>
          </div>
        </form>
      )}
    </section>
  );
}
