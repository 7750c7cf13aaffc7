'use client';

import { useRouter } from 'next/navigation';
import { signIn } from 'next-auth/react';
import { type FormEvent, useState } from 'react';
import { ApiProblem, api } from '@/components/api';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';

export type Status = { kind: 'idle' } | { kind: 'busy'; label: string } | { kind: 'error'; message: string };

const SIGN_IN_ERRORS: Record<string, string> = {
  CodeExpired: 'That code has expired or was tried too many times. Send a new code.',
  CredentialsSignin: 'That did not work. Check it and try again.',
  InvitationRefused: 'This invitation can no longer be used: ask whoever invited you for a new one.',
  TwoFactorInvalid: 'That authenticator code is not right (or was used already). Check the app and try again.',
  TwoFactorRateLimited: 'Too many authenticator codes were tried. Wait a few minutes and try again.',
};

/** The email code was right and the member signs in with a second factor too: the form asks for it. */
const TWO_FACTOR_REQUIRED = 'TwoFactorRequired';

export function signInError(error: string | null | undefined, fallback: string): string {
  if (error === 'CredentialsSignin') return fallback;
  return (error && SIGN_IN_ERRORS[error]) ?? 'Signing in failed. Try again.';
}

/** The API's reason (the first field error, else the detail); a network failure has none. */
export function problemDetail(error: unknown): string {
  if (error instanceof ApiProblem) return error.errors[0]?.message ?? error.message;
  return 'The server could not be reached. Try again.';
}

export function StatusLine({ status }: { status: Status }) {
  if (status.kind === 'busy') {
    return (
      <p role="status" aria-live="polite" className="text-sm text-slate-600">
        {status.label}
      </p>
    );
  }
  if (status.kind === 'error') {
    return (
      <p role="alert" className="rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-800">
        {status.message}
      </p>
    );
  }
  return null;
}

function useSignedInRedirect() {
  const router = useRouter();
  return () => {
    router.replace('/dashboard');
    router.refresh();
  };
}

function EmailCodeForm() {
  const done = useSignedInRedirect();
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [secondFactor, setSecondFactor] = useState<string | null>(null);
  const [status, setStatus] = useState<Status>({ kind: 'idle' });
  const busy = status.kind === 'busy';

  async function sendCode(event?: FormEvent) {
    event?.preventDefault();
    setStatus({ kind: 'busy', label: 'Sending a code…' });
    try {
      await api('/api/v1/auth/sign-in/request-code', { body: { email } });
      setSentTo(email.trim().toLowerCase());
      setCode('');
      setSecondFactor(null);
      setStatus({ kind: 'idle' });
    } catch (error) {
      setStatus({ kind: 'error', message: problemDetail(error) });
    }
  }

  async function submitCode(event: FormEvent) {
    event.preventDefault();
    setStatus({ kind: 'busy', label: 'Signing in…' });
    const credentials = {
      email: sentTo,
      code: code.trim(),
      ...(secondFactor === null ? {} : { totp: secondFactor.trim() }),
    };
    const result = await signIn('email-code', { ...credentials, redirect: false });
    if (result?.ok && !result.error) return done();
    if (result?.error === TWO_FACTOR_REQUIRED) {
      setSecondFactor('');
      setStatus({ kind: 'idle' });
      return;
    }
    setStatus({ kind: 'error', message: signInError(result?.error, 'That code is not right. Check the email.') });
  }

  if (!sentTo) {
    return (
      <form onSubmit={sendCode} className="space-y-4" aria-busy={busy}>
        <Field
          id="sign-in-email"
          label="Email"
          type="email"
          autoComplete="email"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
        <StatusLine status={status} />
        <Button type="submit" disabled={busy || !email}>
          Email me a code
        </Button>
      </form>
    );
  }
  return (
    <form onSubmit={submitCode} className="space-y-4" aria-busy={busy}>
      <p role="status" className="text-sm text-slate-700">
        If <strong>{sentTo}</strong> has an account, a 6-digit code is on its way. It is valid for 10 minutes.
      </p>
      <Field
        id="sign-in-code"
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
        readOnly={secondFactor !== null}
      />
      {secondFactor !== null && (
        <Field
          id="sign-in-totp"
          label="Authenticator code"
          autoComplete="one-time-code"
          required
          autoFocus
          value={secondFactor}
          onChange={(e) => setSecondFactor(e.target.value)}
          hint="Two-factor sign-in is on: the 6 digits your authenticator app shows now, or one of your recovery codes."
        />
      )}
      <StatusLine status={status} />
      <div className="flex flex-wrap gap-2">
        <Button
          type="submit"
          disabled={busy || code.length !== 6 || (secondFactor !== null && secondFactor.trim().length < 6)}
        >
          Sign in
        </Button>
        <Button variant="secondary" disabled={busy} onClick={() => sendCode()}>
          Send a new code
        </Button>
        <Button
          variant="secondary"
          disabled={busy}
          onClick={() => {
            setSentTo(null);
            setSecondFactor(null);
            setStatus({ kind: 'idle' });
          }}
        >
          Use another email
        </Button>
      </div>
    </form>
  );
}

function ApiKeyForm() {
  const done = useSignedInRedirect();
  const [key, setKey] = useState('');
  const [status, setStatus] = useState<Status>({ kind: 'idle' });
  const busy = status.kind === 'busy';

  async function submit(event: FormEvent) {
    event.preventDefault();
    setStatus({ kind: 'busy', label: 'Signing in…' });
    const result = await signIn('api-key', { key: key.trim(), redirect: false });
    if (result?.ok && !result.error) return done();
    setStatus({ kind: 'error', message: signInError(result?.error, 'That key is unknown or revoked.') });
  }

  return (
    <form onSubmit={submit} className="space-y-4" aria-busy={busy}>
      <Field
        id="sign-in-key"
        label="Account API key"
        type="password"
        autoComplete="off"
        spellCheck={false}
        required
        value={key}
        onChange={(e) => setKey(e.target.value)}
        hint="An sk_… key of your account. Device keys (dk_…) do not open the dashboard."
      />
      <StatusLine status={status} />
      <Button type="submit" disabled={busy || !key}>
        Sign in with the key
      </Button>
    </form>
  );
}

export function SignInForm() {
  return (
    <div className="mt-8 space-y-8">
      <section aria-labelledby="by-email" className="rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
        <h2 id="by-email" className="mb-4 text-lg font-semibold">
          With a code by email
        </h2>
        <EmailCodeForm />
      </section>
      <section aria-labelledby="by-key" className="rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
        <h2 id="by-key" className="mb-4 text-lg font-semibold">
          With an API key
        </h2>
        <ApiKeyForm />
      </section>
    </div>
  );
}
