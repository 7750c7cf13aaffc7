'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { ApiProblem, api, type Page } from '@/components/api';
import { queryKeys } from '@/components/query-keys';
import { Button } from '@/components/ui/button';
import { Section } from '@/components/ui/section';
import { ErrorState } from '@/components/ui/states';
import { useRefresh } from '@/components/use-refresh';
import type { Balances, Bulk, Phone } from '@/components/wire';
import { countSegments } from '@/lib/messages/segments';
import { parseRecipients } from './recipients';
import { MessageStatusBadge } from './status-badge';

const STATUS_ORDER: Record<Phone['status'], number> = { online: 0, unknown: 1, offline: 2 };
const PROGRESS_INTERVAL_MS = 2_000;

/** The counts of one bulk by state, live until nothing is queued or on its way. */
function BulkProgress({ bulkId }: { bulkId: string }) {
  const bulk = useQuery({
    queryKey: queryKeys.bulks.one(bulkId),
    queryFn: () => api<Bulk>(`/api/v1/bulk-messages/${bulkId}`),
    refetchInterval: (query) => {
      const counts = query.state.data?.counts;
      return counts && counts.queued + counts.dispatched + counts.sent === 0 ? false : PROGRESS_INTERVAL_MS;
    },
  });
  if (bulk.isPending) return <div className="h-16 animate-pulse rounded bg-slate-100" />;
  if (bulk.isError) return <ErrorState error={bulk.error} onRetry={() => bulk.refetch()} />;
  const { counts, count } = bulk.data;
  const done = counts.delivered + counts.failed + counts.expired;
  return (
    <div className="space-y-3" data-testid="bulk-progress">
      <p className="text-sm">
        {done} of {count} finished.
      </p>
      <progress className="h-2 w-full" max={count} value={done} aria-label="Messages finished" />
      <ul className="flex flex-wrap gap-3 text-sm">
        {(Object.keys(counts) as Array<keyof typeof counts>).map((state) => (
          <li key={state} className="flex items-center gap-1" data-testid={`bulk-count-${state}`}>
            <MessageStatusBadge status={state} /> <span className="tabular-nums">{counts[state]}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * One text to many numbers: paste them or upload a CSV; rows that are no number are listed before
 * anything is sent, with the credits it costs and the group they come from; then the bulk's progress.
 */
export function BulkCompose() {
  const ids = useId();
  const refresh = useRefresh();
  const phones = useQuery({
    queryKey: queryKeys.phones.options(),
    queryFn: () => api<Page<Phone>>('/api/v1/phones?limit=100'),
  });
  const balance = useQuery({
    queryKey: queryKeys.balance.root,
    queryFn: () => api<Balances>('/api/v1/credits/balance'),
  });
  const sorted = [...(phones.data?.data ?? [])].sort((a, b) => STATUS_ORDER[a.status] - STATUS_ORDER[b.status]);
  const [chosen, setChosen] = useState('');
  const [numbers, setNumbers] = useState('');
  const [content, setContent] = useState('');
  const [bulkId, setBulkId] = useState<string | null>(null);
  const from = chosen || sorted[0]?.phone || '';
  const sender = sorted.find((phone) => phone.phone === from);
  const group = balance.data?.data.find((g) => g.group_id === sender?.group_id);
  const parsed = parseRecipients(numbers);
  const count = countSegments(content);
  const short = group !== undefined && group.balance < parsed.valid.length;

  const send = useMutation({
    meta: { success: 'Bulk message queued' },
    mutationFn: () =>
      api<{ id: string }>('/api/v1/bulk-messages', { body: { from, recipients: parsed.valid, content } }),
    onSuccess: (created) => {
      setBulkId(created.id);
      return refresh('messages', 'balance', 'ledger', 'groups');
    },
  });
  const problem = send.error instanceof ApiProblem ? send.error : undefined;

  if (bulkId) {
    return (
      <Section title="Bulk progress">
        <BulkProgress bulkId={bulkId} />
        <Button
          variant="secondary"
          className="mt-4"
          onClick={() => {
            setBulkId(null);
            setNumbers('');
            send.reset();
          }}
        >
          Send another
        </Button>
      </Section>
    );
  }

  return (
    <Section title="Bulk message">
      <form
        className="space-y-4"
        onSubmit={(event) => {
          event.preventDefault();
          send.mutate();
        }}
      >
        <div className="flex flex-col gap-1">
          <label htmlFor={`${ids}-from`} className="text-sm font-medium text-slate-800">
            From (your phone)
          </label>
          <select
            id={`${ids}-from`}
            required
            value={from}
            onChange={(e) => setChosen(e.target.value)}
            className="min-w-0 rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm"
          >
            {sorted.length === 0 && <option value="">{phones.isPending ? 'Loading phones…' : 'No phones yet'}</option>}
            {sorted.map((phone) => (
              <option key={phone.id} value={phone.phone}>
                {phone.label ? `${phone.label} (${phone.phone})` : phone.phone}
                {phone.status === 'online' ? '' : ` — ${phone.status}`}
              </option>
            ))}
          </select>
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor={`${ids}-numbers`} className="text-sm font-medium text-slate-800">
            Recipients (one number a line, or the first column of a CSV)
          </label>
          <textarea
            id={`${ids}-numbers`}
            rows={5}
            value={numbers}
            onChange={(e) => setNumbers(e.target.value)}
            className="rounded-md border border-slate-300 px-3 py-1.5 font-mono text-sm"
          />
          <label className="text-sm text-slate-700">
            <span className="mr-2">Or upload a CSV file:</span>
            <input
              type="file"
              accept=".csv,text/csv,text/plain"
              aria-label="Upload a CSV of recipients"
              className="max-w-full text-sm"
              onChange={async (e) => {
                const file = e.target.files?.[0];
                if (file) setNumbers(await file.text());
              }}
            />
          </label>
        </div>
        <div className="flex flex-col gap-1">
          <label htmlFor={`${ids}-content`} className="text-sm font-medium text-slate-800">
            Message
          </label>
          <textarea
            id={`${ids}-content`}
            required
            maxLength={1600}
            rows={3}
            value={content}
            onChange={(e) => setContent(e.target.value)}
            aria-describedby={`${ids}-count`}
            className="rounded-md border border-slate-300 px-3 py-1.5 text-sm"
          />
          <p id={`${ids}-count`} className="text-xs text-slate-600">
            {count.encoding} · {count.segments} segment{count.segments === 1 ? '' : 's'} per message
          </p>
        </div>

        <div className="rounded-md border border-slate-200 bg-slate-50 p-3 text-sm" data-testid="bulk-summary">
          <p>
            <strong>{parsed.valid.length}</strong> recipient{parsed.valid.length === 1 ? '' : 's'}
            {parsed.duplicates > 0
              ? ` (${parsed.duplicates} repeat${parsed.duplicates === 1 ? '' : 's'} left out)`
              : ''}
            {' · '}costs <strong>{parsed.valid.length}</strong> credit{parsed.valid.length === 1 ? '' : 's'}
            {group ? ` from group ${group.name} (balance ${group.balance})` : ''}.
          </p>
          {short && <p className="mt-1 text-red-800">Group {group?.name} does not have enough credits.</p>}
          {parsed.tooMany && <p className="mt-1 text-red-800">At most 1000 recipients in one bulk.</p>}
          {parsed.invalid.length > 0 && (
            <div className="mt-2">
              <p className="font-medium text-red-800">
                {parsed.invalid.length} row{parsed.invalid.length === 1 ? ' is' : 's are'} not a phone number and will
                not be sent:
              </p>
              <ul className="mt-1 list-inside list-disc break-all" aria-label="Invalid rows">
                {parsed.invalid.map((row) => (
                  <li key={row.row}>
                    Row {row.row}: {row.value}
                  </li>
                ))}
              </ul>
            </div>
          )}
        </div>

        {problem && <ErrorState error={problem} />}
        <Button type="submit" disabled={send.isPending || !from || parsed.valid.length === 0 || parsed.tooMany}>
          {send.isPending
            ? 'Sending…'
            : `Send to ${parsed.valid.length} recipient${parsed.valid.length === 1 ? '' : 's'}`}
        </Button>
      </form>
    </Section>
  );
}
