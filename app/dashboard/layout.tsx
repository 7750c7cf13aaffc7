import { headers } from 'next/headers';
import { redirect } from 'next/navigation';
import type { ReactNode } from 'react';
import { Providers } from '@/components/providers';
import { signedInAccount } from '@/lib/auth/current-account';
import { AccountSwitcher } from './account-switcher';
import { DashboardNav } from './nav';
import { SignOutButton } from './sign-out-button';
import { TwoFactorRequired } from './two-factor-required';

export const dynamic = 'force-dynamic';

export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const account = await signedInAccount((await headers()).get('cookie'));
  if (!account) redirect('/sign-in');
  return (
    <Providers>
      <div className="mx-auto max-w-5xl px-4 py-6 sm:px-6 sm:py-8 lg:max-w-7xl">
        <header className="flex flex-wrap items-center justify-between gap-4 border-b border-slate-200 pb-4">
          <div>
            <p className="text-xl font-bold tracking-tight">Simgate</p>
            <p className="text-sm text-slate-600">
              Signed in as <strong data-testid="account-email">{account.email}</strong>
              {account.role && (
                <>
                  {' · '}
                  <span data-testid="account-role">{account.role}</span>
                </>
              )}
            </p>
          </div>
          <div className="flex flex-wrap items-end gap-3">
            <AccountSwitcher />
            <SignOutButton />
          </div>
        </header>
        {account.twoFactorPending ? (
          <TwoFactorRequired />
        ) : (
          <div className="lg:mt-6 lg:grid lg:grid-cols-[12rem_minmax(0,1fr)] lg:gap-8">
            <DashboardNav role={account.role} />
            <main className="min-w-0 space-y-6">{children}</main>
          </div>
        )}
      </div>
    </Providers>
  );
}
