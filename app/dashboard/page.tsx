import type { Metadata } from 'next';
import { headers } from 'next/headers';
import Link from 'next/link';
import { redirect } from 'next/navigation';
import { signedInAccount } from '@/lib/auth/current-account';
import { SignOutButton } from './sign-out-button';

export const metadata: Metadata = { title: 'Dashboard · Simgate' };
export const dynamic = 'force-dynamic';

export default async function DashboardPage() {
  const account = await signedInAccount((await headers()).get('cookie'));
  if (!account) redirect('/sign-in');
  return (
    <main className="mx-auto max-w-3xl px-6 py-12">
      <header className="flex flex-wrap items-center justify-between gap-4">
        <div>
          <h1 className="text-3xl font-bold tracking-tight">Dashboard</h1>
          <p className="mt-1 text-sm text-slate-600">
            Signed in as <strong data-testid="account-email">{account.email}</strong>
          </p>
        </div>
        <SignOutButton />
      </header>
      <nav aria-label="Dashboard" className="mt-8 flex flex-wrap gap-3 text-sm">
        <Link className="underline" href="/docs">
          API reference
        </Link>
      </nav>
    </main>
  );
}
