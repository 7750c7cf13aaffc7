import type { Metadata } from 'next';
import Link from 'next/link';
import { BulkCompose } from '@/components/messages/bulk-compose';

export const metadata: Metadata = { title: 'Bulk message · Simgate' };

export default function BulkPage() {
  return (
    <>
      <Link href="/dashboard/messages" className="text-sm font-medium text-slate-700 underline">
        ← All messages
      </Link>
      <h1 className="text-2xl font-bold tracking-tight">Bulk message</h1>
      <BulkCompose />
    </>
  );
}
