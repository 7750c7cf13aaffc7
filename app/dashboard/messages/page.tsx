import type { Metadata } from 'next';
import Link from 'next/link';
import { Suspense } from 'react';
import { MessagesPanel } from '@/components/panels/messages-panel';

export const metadata: Metadata = { title: 'Messages · Simgate' };

export default function MessagesPage() {
  return (
    <>
      <h1 className="sr-only">Messages</h1>
      <p className="mb-4 text-sm">
        <Link className="font-medium underline" href="/dashboard/messages/bulk">
          Bulk send: paste numbers or upload a CSV
        </Link>
      </p>
      <Suspense>
        <MessagesPanel />
      </Suspense>
    </>
  );
}
