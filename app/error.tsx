'use client';

import Link from 'next/link';

/** Any page that throws while rendering lands here, in the app's style, with a way back. */
export default function ErrorPage({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <main className="mx-auto max-w-lg px-4 py-16 text-center">
      <p className="text-sm font-semibold text-slate-600">500</p>
      <h1 className="mt-2 text-2xl font-bold tracking-tight">Something went wrong</h1>
      <p className="mt-2 text-slate-700">
        The page failed to load. Trying again often helps{error.digest ? ` (reference ${error.digest})` : ''}.
      </p>
      <div className="mt-6 flex flex-wrap justify-center gap-3">
        <button
          type="button"
          onClick={reset}
          className="rounded-md bg-slate-900 px-4 py-2 text-sm font-medium text-white"
        >
          Try again
        </button>
        <Link href="/dashboard" className="rounded-md border border-slate-300 px-4 py-2 text-sm font-medium">
          Back to the dashboard
        </Link>
      </div>
    </main>
  );
}
