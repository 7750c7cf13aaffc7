'use client';

import { useMutation } from '@tanstack/react-query';
import Link from 'next/link';
import { queryKeys } from '@/components/query-keys';
import type { Delivery } from '@/components/wire';
import { api } from '../api';
import { Button } from '../ui/button';
import { ListView, Table } from '../ui/list-view';
import { formatTime } from '../ui/section';
import { EmptyState, ErrorState } from '../ui/states';
import { usePagedList } from '../use-paged-list';
import { useRefresh } from '../use-refresh';

/** Every delivery of one webhook, with its last answer, and a resend for each. */
export function WebhookDeliveries({ webhookId }: { webhookId: string }) {
  const refresh = useRefresh();
  const deliveries = usePagedList<Delivery>(
    queryKeys.deliveries.list(webhookId),
    `/api/v1/webhooks/${webhookId}/deliveries`,
    // Live while open: a queued delivery turns succeeded or failed within seconds.
    { refetchInterval: 3_000 },
  );
  const resend = useMutation({
    meta: { success: 'Delivery queued again' },
    mutationFn: (id: string) => api(`/api/v1/webhooks/${webhookId}/deliveries/${id}/resend`, { method: 'POST' }),
    onSuccess: () => refresh('deliveries'),
  });
  return (
    <div className="mt-4">
      {resend.error && <ErrorState error={resend.error} />}
      <ListView list={deliveries} empty={<EmptyState title="No deliveries yet" />}>
        {(items) => (
          <Table columns={['Event', 'Status', 'Attempts', 'Last answer', 'Queued', '']}>
            {items.map((d) => (
              <tr key={d.id} className="border-t border-slate-100">
                <td className="py-2">
                  <Link
                    href={`/dashboard/settings/webhooks/${webhookId}/deliveries/${d.id}`}
                    className="underline decoration-slate-400 underline-offset-2 hover:decoration-slate-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-slate-900"
                  >
                    <code>{d.event_type}</code>
                    <span className="sr-only"> delivery of {formatTime(d.created_at)}</span>
                  </Link>
                </td>
                <td>
                  {d.status}
                  {d.next_attempt_at && (
                    <span className="block text-xs text-slate-500">next {formatTime(d.next_attempt_at)}</span>
                  )}
                </td>
                <td>{d.attempt_count}</td>
                <td className="max-w-xs truncate" title={d.last_error ?? undefined}>
                  {d.last_status_code ?? d.last_error ?? '—'}
                </td>
                <td>{formatTime(d.created_at)}</td>
                <td className="text-right">
                  <Button variant="secondary" onClick={() => resend.mutate(d.id)} disabled={resend.isPending}>
                    Resend
                    <span className="sr-only">
                      {' '}
                      {d.event_type} delivery of {formatTime(d.created_at)}
                    </span>
                  </Button>
                </td>
              </tr>
            ))}
          </Table>
        )}
      </ListView>
    </div>
  );
}
