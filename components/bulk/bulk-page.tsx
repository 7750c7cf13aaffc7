'use client';

import { useRouter } from 'next/navigation';
import { BulkCompose } from './bulk-compose';
import { BulkProgress } from './bulk-progress';

/** Compose, preview (dry run) and send; then the bulk's progress, at a URL that survives a reload. */
export function BulkPage({ bulkId }: { bulkId?: string }) {
  const router = useRouter();
  if (bulkId) return <BulkProgress bulkId={bulkId} />;
  return <BulkCompose onSent={(id) => router.push(`/dashboard/messages/bulk?bulk=${id}`)} />;
}
