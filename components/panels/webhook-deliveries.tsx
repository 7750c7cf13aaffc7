'use client';

import { useMutation } from '@tanstack/react-query';
import { api } from '../api';
import { Button } from '../ui/button';
import { LoadMore } from '../ui/load-more';
import { formatTime } from '../ui/section';
import { EmptyState, ErrorState, Loading } from '../ui/states';
import { usePagedList } from '../use-paged-list';
import { useRefresh } from '../use-refresh';

type Delivery = {
  id: string;
  event_type: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempt_count: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
};

/** Every delivery of one webhook, with its last answer, and a resend for each. */
export function WebhookDeliveries({ webhookId }: { webhookId: string }) {
  const refresh = useRefresh();
  const deliveries = usePagedList<Delivery>(['deliveries', webhookId], `/api/v1/webhooks/${webhookId}/deliveries`);
  const resend = useMutation({
    mutationFn: (id: string) => api(`/api/v1/webhooks/${webhookId}/deliveries/${id}/resend`, { method: 'POST' }),
    onSuccess: () => refresh('deliveries'),
  });
  if (deliveries.isPending) return <Loading label="Loading deliveries…" />;
  if (deliveries.error) return <ErrorState error={deliveries.error} onRetry={() => deliveries.refetch()} />;
  return (
    <div className="mt-4">
      {resend.error && <ErrorState error={resend.error} />}
      {deliveries.items.length === 0 ? (
        <EmptyState title="No deliveries yet" />
      ) : (
        <table className="w-full text-left text-sm">
          <thead className="text-slate-500">
            <tr>
              <th className="py-2">Event</th>
              <th>Status</th>
              <th>Attempts</th>
              <th>Last answer</th>
              <th>Queued</th>
              <th>
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {deliveries.items.map((d) => (
              <tr key={d.id} className="border-t border-slate-100">
                <td className="py-2">
                  <code>{d.event_type}</code>
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
                  </Button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <LoadMore {...deliveries} />
    </div>
  );
}
