'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { queryKeys } from '@/components/query-keys';
import type { InboxExport, Phone } from '@/components/wire';
import { ApiProblem, api } from '../api';
import { Button } from '../ui/button';
import { Field } from '../ui/field';
import { formatTime, Section } from '../ui/section';
import { ErrorState, Loading } from '../ui/states';
import { LIVE_INTERVAL_MS } from './queries';

/** `datetime-local`'s value for a date, in the browser's zone. */
function localInput(date: Date): string {
  const shifted = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return shifted.toISOString().slice(0, 16);
}

function fromLocalInput(value: string): string | null {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

const stillCounting = (request: InboxExport) => new Date(request.counting_until).getTime() > Date.now();

function outcome(request: InboxExport): string {
  const waiting = stillCounting(request) ? ' (still counting)' : '';
  return `${request.recovered} recovered, ${request.repeated} already here${waiting}`;
}

/**
 * "Recover messages received while disconnected": asks a phone paired with the SMSGate app to send
 * again what its inbox received in a period, and shows what came back per request.
 */
export function InboxRecovery({ phone }: { phone: Phone }) {
  const sinceId = useId();
  const untilId = useId();
  const queryClient = useQueryClient();
  const [since, setSince] = useState(() => localInput(new Date(Date.now() - 24 * 3_600_000)));
  const [until, setUntil] = useState(() => localInput(new Date()));
  const exports = useQuery({
    queryKey: queryKeys.phones.inboxExports(phone.id),
    queryFn: () => api<InboxExport[]>(`/api/v1/phones/${phone.id}/inbox-export`),
    // While a request is counting, what came back grows.
    refetchInterval: (query) => (query.state.data?.some(stillCounting) ? LIVE_INTERVAL_MS : false),
  });
  const request = useMutation({
    mutationFn: () =>
      api<InboxExport>(`/api/v1/phones/${phone.id}/inbox-export`, {
        body: { since: fromLocalInput(since), until: fromLocalInput(until) },
      }),
    meta: { success: 'Asked the phone to send its messages again.' },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.phones.inboxExports(phone.id) }),
  });
  const fieldError = (name: string) =>
    request.error instanceof ApiProblem ? request.error.fieldError(name) : undefined;

  return (
    <Section title="Recover messages received while disconnected">
      <p className="text-sm text-slate-700">
        A phone paired with the SMSGate app keeps every SMS in its inbox. Ask it to send again what it received in a
        period (at most 30 days): messages Simgate already has are skipped, the others appear as received messages. The
        phone must be online (the app open, with “SSE only” chosen).
      </p>
      <form
        className="mt-4 flex flex-wrap items-start gap-3"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          request.mutate();
        }}
      >
        <div className="w-60 max-w-full">
          <Field
            id={sinceId}
            label="From"
            type="datetime-local"
            required
            value={since}
            onChange={(e) => setSince(e.target.value)}
            error={fieldError('since')}
          />
        </div>
        <div className="w-60 max-w-full">
          <Field
            id={untilId}
            label="To"
            type="datetime-local"
            required
            value={until}
            onChange={(e) => setUntil(e.target.value)}
            error={fieldError('until')}
          />
        </div>
        <Button type="submit" className="mt-6" disabled={request.isPending}>
          {request.isPending ? 'Asking the phone…' : 'Recover messages'}
        </Button>
      </form>
      <div className="mt-4" aria-live="polite">
        {exports.isPending ? (
          <Loading label="Loading recoveries…" />
        ) : exports.error ? (
          <ErrorState error={exports.error} onRetry={() => exports.refetch()} />
        ) : exports.data.length === 0 ? (
          <p className="text-sm text-slate-600">No recovery asked for yet.</p>
        ) : (
          <ul className="divide-y divide-slate-100 text-sm">
            {exports.data.map((item) => (
              <li key={item.id} className="flex flex-wrap justify-between gap-x-4 gap-y-1 py-2">
                <span className="text-slate-700">
                  {formatTime(item.since)} – {formatTime(item.until)}
                </span>
                <span className="font-medium text-slate-900" data-testid="inbox-export-outcome">
                  {outcome(item)}
                </span>
              </li>
            ))}
          </ul>
        )}
      </div>
    </Section>
  );
}
