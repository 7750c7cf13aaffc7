import type { Metadata } from 'next';
import Link from 'next/link';

export const metadata: Metadata = { title: 'Page not found · Simgate' };

export default function NotFound() {
  return (
    <main className="mx-auto max-w-lg px-4 py-16 text-center">
      <p className="text-sm font-semibold text-slate-600">404</p>
      <h1 className="mt-2 text-2xl font-bold tracking-tight">This page does not exist</h1>
      <p className="mt-2 text-slate-700">The link may be old, or the phone, message or webhook it named was deleted.</p>
      <Link
        href="/dashboard"
        className="mt-6 inline-block rounded-md bg-slate-900 px-4 py-2 text-sm font-medium text-white"
      >
        Back to the dashboard
      </Link>
    </main>
  );
}
