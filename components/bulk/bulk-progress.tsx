'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import { api } from '../api';
import { queryKeys } from '../query-keys';
import { Button } from '../ui/button';
import { ConfirmDialog } from '../ui/confirm';
import { Section } from '../ui/section';
import { ErrorState, Loading } from '../ui/states';
import { finishText } from './finish-time';

type Bulk = {
  id: string;
  from: string | null;
  from_group: number | null;
  count: number;
  created_at: string;
  counts: Record<'queued' | 'dispatched' | 'sent' | 'delivered' | 'failed' | 'expired' | 'cancelled', number>;
  estimated_completion_at: string | null;
};

const STATES = [
  { key: 'queued', label: 'Queued', bar: 'bg-slate-400' },
  { key: 'dispatched', label: 'On the phone', bar: 'bg-sky-500' },
  { key: 'sent', label: 'Sent', bar: 'bg-indigo-500' },
  { key: 'delivered', label: 'Delivered', bar: 'bg-green-600' },
  { key: 'failed', label: 'Failed', bar: 'bg-red-600' },
  { key: 'expired', label: 'Expired', bar: 'bg-amber-600' },
  { key: 'cancelled', label: 'Cancelled', bar: 'bg-slate-700' },
] as const;

/** A bulk's messages by state, refreshed every two seconds until none is still on its way. */
export function BulkProgress({ bulkId }: { bulkId: string }) {
  const bulk = useQuery({
    queryKey: queryKeys.bulks.one(bulkId),
    queryFn: () => api<Bulk>(`/api/v1/bulk-messages/${bulkId}`),
    refetchInterval: (query) => {
      const counts = query.state.data?.counts;
      return counts && counts.queued + counts.dispatched + counts.sent === 0 ? false : 2000;
    },
  });
  const [confirming, setConfirming] = useState(false);
  const cancel = useMutation({
    mutationFn: () => api(`/api/v1/bulk-messages/${bulkId}/cancel`, { method: 'POST' }),
    onSuccess: () => {
      setConfirming(false);
      return bulk.refetch();
    },
  });
  if (bulk.isPending) return <Loading />;
  if (bulk.error) return <ErrorState error={bulk.error} onRetry={() => bulk.refetch()} />;
  const { counts, count } = bulk.data;
  const done = counts.delivered + counts.failed + counts.expired + counts.cancelled;
  return (
    <Section title="Bulk progress">
      <p className="text-sm" aria-live="polite" data-testid="bulk-done">
        {done} of {count} finished · {counts.delivered} delivered
      </p>
      <FinishTime bulk={bulk.data} />
      <div
        className="mt-3 flex h-3 w-full overflow-hidden rounded-full bg-slate-100"
        role="img"
        aria-label={STATES.map((state) => `${state.label}: ${counts[state.key]}`).join(', ')}
      >
        {STATES.map((state) =>
          counts[state.key] > 0 ? (
            <div key={state.key} className={state.bar} style={{ width: `${(counts[state.key] / count) * 100}%` }} />
          ) : null,
        )}
      </div>
      <dl className="mt-4 grid grid-cols-2 gap-2 text-sm sm:grid-cols-3">
        {STATES.map((state) => (
          <div key={state.key} className="flex items-center gap-2">
            <span className={`inline-block h-2.5 w-2.5 rounded-full ${state.bar}`} aria-hidden="true" />
            <dt>{state.label}</dt>
            <dd className="font-semibold" data-testid={`bulk-${state.key}`}>
              {counts[state.key]}
            </dd>
          </div>
        ))}
      </dl>
      {counts.queued > 0 && (
        <div className="mt-4">
          <Button variant="secondary" onClick={() => setConfirming(true)}>
            Cancel the {counts.queued} queued message(s)
          </Button>
        </div>
      )}
      <ConfirmDialog
        open={confirming}
        title={`Cancel ${counts.queued} queued message(s)?`}
        confirmLabel="Cancel them"
        pending={cancel.isPending}
        onConfirm={() => cancel.mutate()}
        onCancel={() => setConfirming(false)}
      >
        They will not be sent and their credits go back. Phones holding messages of this bulk are told to drop them too
        (refunded once a phone confirms); those already sent stay sent.
        {cancel.error && <ErrorState error={cancel.error} />}
      </ConfirmDialog>
      <p className="mt-4 text-sm">
        <Link className="underline" href="/dashboard/messages/bulk">
          Send another bulk
        </Link>
      </p>
    </Section>
  );
}

/** When the last message is expected to go to its phone, or went. */
function FinishTime({ bulk }: { bulk: Bulk }) {
  const estimated = bulk.estimated_completion_at;
  if (!estimated) return null;
  return (
    <p className="mt-1 text-sm text-slate-700" data-testid="bulk-finish">
      {bulk.counts.queued > 0
        ? `Handed to the phones in ${finishText(estimated)}`
        : `All handed to the phones by ${new Date(estimated).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })}`}
    </p>
  );
}
