import type { Metadata } from 'next';
import { ConfirmEmailButton } from '@/components/email-addresses/confirm-email-button';

export const metadata: Metadata = { title: 'Confirm forwarding · Simgate' };
export const dynamic = 'force-dynamic';

/**
 * Where the link emailed to a new forwarding address leads. Confirming takes a click: mail
 * scanners that open every link do not confirm on their own.
 */
export default async function ConfirmEmailPage({ searchParams }: { searchParams: Promise<{ token?: string }> }) {
  const { token } = await searchParams;
  return (
    <main className="mx-auto max-w-md px-6 py-16">
      <h1 className="text-3xl font-bold tracking-tight">Forward text messages to this address?</h1>
      <p className="mt-2 text-sm text-slate-600">
        A Simgate account asked to forward the SMS its phones receive to your email address. Nothing is forwarded to you
        unless you confirm.
      </p>
      {typeof token === 'string' && token ? (
        <ConfirmEmailButton token={token} />
      ) : (
        <p role="alert" className="mt-6 text-sm text-red-800">
          This link is incomplete: open the link from the email again.
        </p>
      )}
    </main>
  );
}
