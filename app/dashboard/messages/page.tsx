import type { Metadata } from 'next';
import Link from 'next/link';
import { Suspense } from 'react';
import { MessagesPanel } from '@/components/messages/messages-panel';

export const metadata: Metadata = { title: 'Messages · Simgate' };

export default function MessagesPage() {
  return (
    <>
      <h1 className="sr-only">Messages</h1>
      <p className="text-sm">
        <Link href="/dashboard/messages/bulk" className="font-medium underline">
          Send one text to many numbers (bulk, CSV upload)
        </Link>
      </p>
      {/* The search box keeps its text in the URL (useSearchParams). */}
      <Suspense>
        <MessagesPanel />
      </Suspense>
    </>
  );
}
