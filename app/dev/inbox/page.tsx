import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { config } from '@/lib/config';
import { inboxQuery } from '@/lib/dev-inbox/schemas';
import { readDevInbox } from '@/lib/dev-inbox/store';

export const metadata: Metadata = { title: 'Dev inbox · Simgate' };
export const dynamic = 'force-dynamic';

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export default async function DevInboxPage({ searchParams }: { searchParams: SearchParams }) {
  if (!config.devInboxEnabled) notFound();
  const raw = await searchParams;
  const parsed = inboxQuery.safeParse({ to: typeof raw.to === 'string' && raw.to ? raw.to : undefined, limit: 100 });
  const to = parsed.success ? parsed.data.to : undefined;
  const items = await readDevInbox({ to, limit: 100 });
  return (
    <main className="mx-auto max-w-6xl px-6 py-12">
      <h1 className="text-3xl font-bold tracking-tight">Dev inbox</h1>
      <p className="mt-2 max-w-3xl text-sm text-slate-600">
        Codes and emails that would have gone out by SMS or email, newest first. This page exists because no SMS sender
        or SMTP server is configured (or <code>DEV_INBOX=1</code> is set). The same list is at{' '}
        <a className="underline" href="/api/dev/inbox">
          /api/dev/inbox
        </a>
        .
      </p>
      <form method="get" className="mt-6 flex flex-wrap items-end gap-3" aria-label="Filter by recipient">
        <div className="flex flex-col gap-1">
          <label htmlFor="inbox-to" className="text-sm font-medium text-slate-800">
            Recipient
          </label>
          <input
            id="inbox-to"
            name="to"
            defaultValue={to ?? ''}
            placeholder="+14155550100 or ops@example.com"
            className="w-72 rounded-md border border-slate-300 px-3 py-1.5 text-sm focus-visible:outline-2 focus-visible:outline-slate-900"
          />
        </div>
        <button
          type="submit"
          className="rounded-md bg-slate-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-slate-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-slate-900"
        >
          Filter
        </button>
        <a className="py-1.5 text-sm underline" href="/dev/inbox">
          Show all / refresh
        </a>
      </form>
      {items.length === 0 ? (
        <div className="mt-8 rounded-md border border-dashed border-slate-300 p-8 text-center">
          <p className="font-medium text-slate-800">Nothing here yet</p>
          <p className="mt-2 text-sm text-slate-600">
            Register a device (POST /api/v1/phones/register-device) or ask for a sign-in code, then refresh.
          </p>
        </div>
      ) : (
        <div className="mt-8 overflow-x-auto rounded-lg border border-slate-200 bg-white shadow-sm">
          <table className="min-w-full divide-y divide-slate-200 text-left text-sm">
            <caption className="sr-only">Messages in the dev inbox, newest first</caption>
            <thead className="bg-slate-50 text-xs uppercase tracking-wide text-slate-600">
              <tr>
                <th scope="col" className="px-4 py-3">
                  Sent
                </th>
                <th scope="col" className="px-4 py-3">
                  Channel
                </th>
                <th scope="col" className="px-4 py-3">
                  To
                </th>
                <th scope="col" className="px-4 py-3">
                  Code
                </th>
                <th scope="col" className="px-4 py-3">
                  Message
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {items.map((item) => (
                <tr key={`${item.created_at}-${item.channel}-${item.to}-${item.code ?? ''}`} className="align-top">
                  <td className="whitespace-nowrap px-4 py-3 text-slate-600">
                    <time dateTime={item.created_at}>{item.created_at.replace('T', ' ').slice(0, 19)} UTC</time>
                  </td>
                  <td className="px-4 py-3">{item.channel === 'sms' ? 'SMS' : 'Email'}</td>
                  <td className="px-4 py-3 font-mono">{item.to}</td>
                  <td className="px-4 py-3">
                    {item.code ? (
                      <code className="rounded bg-amber-50 px-2 py-1 font-mono text-base font-semibold tracking-widest text-amber-900">
                        {item.code}
                      </code>
                    ) : (
                      '—'
                    )}
                  </td>
                  <td className="px-4 py-3">
                    {item.subject && <p className="font-medium">{item.subject}</p>}
                    <p className="whitespace-pre-wrap text-slate-700">{item.text}</p>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </main>
  );
}
