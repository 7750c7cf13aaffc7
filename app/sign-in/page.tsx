import type { Metadata } from 'next';
import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { signedInAccount } from '@/lib/auth/current-account';
import { SignInForm } from './sign-in-form';

export const metadata: Metadata = { title: 'Sign in · Simgate' };
export const dynamic = 'force-dynamic';

export default async function SignInPage() {
  if (await signedInAccount((await headers()).get('cookie'))) redirect('/dashboard');
  return (
    <main className="mx-auto max-w-md px-6 py-16">
      <h1 className="text-3xl font-bold tracking-tight">Sign in to Simgate</h1>
      <p className="mt-2 text-sm text-slate-600">
        No passwords: we email you a one-time code, or you paste one of your account&apos;s API keys. An account is
        created when a phone is activated with your email.
      </p>
      <SignInForm />
    </main>
  );
}
