import type { Metadata } from 'next';
import { BulkPage } from '@/components/bulk/bulk-page';

export const metadata: Metadata = { title: 'Bulk send · Simgate' };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export default async function BulkSendPage({ searchParams }: { searchParams: Promise<{ bulk?: string | string[] }> }) {
  const { bulk } = await searchParams;
  const bulkId = typeof bulk === 'string' && UUID.test(bulk) ? bulk : undefined;
  return (
    <>
      <h1 className="sr-only">Bulk send</h1>
      <BulkPage bulkId={bulkId} />
    </>
  );
}
