'use client';

import { useMutation } from '@tanstack/react-query';
import Link from 'next/link';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useEffect, useState } from 'react';
import { ComposeForm } from '@/components/messages/compose-form';
import { MESSAGE_STATUSES, MessageStatusBadge } from '@/components/messages/status-badge';
import { queryKeys } from '@/components/query-keys';
import type { Message } from '@/components/wire';
import { api } from '../api';
import { Button } from '../ui/button';
import { ConfirmDialog } from '../ui/confirm';
import { ListView, Table } from '../ui/list-view';
import { formatTime, Section } from '../ui/section';
import { EmptyState, ErrorState } from '../ui/states';
import { usePagedList } from '../use-paged-list';
import { useRefresh } from '../use-refresh';

const STATUSES = ['', ...MESSAGE_STATUSES];

/** The search box's text, kept in the URL (`?q=`) once typing pauses. */
function useSearchInUrl(): [string, string, (value: string) => void] {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const applied = params.get('q') ?? '';
  const [typed, setTyped] = useState(applied);
  useEffect(() => {
    const timer = setTimeout(() => {
      if (typed.trim() === applied) return;
      const next = new URLSearchParams(params.toString());
      if (typed.trim()) next.set('q', typed.trim());
      else next.delete('q');
      router.replace(`${pathname}${next.size > 0 ? `?${next}` : ''}`, { scroll: false });
    }, 300);
    return () => clearTimeout(timer);
  }, [typed, applied, params, pathname, router]);
  return [typed, applied, setTyped];
}

export function MessagesPanel() {
  const [status, setStatus] = useState('');
  const [direction, setDirection] = useState('');
  const [typed, search, setTyped] = useSearchInUrl();
  const [cancelling, setCancelling] = useState<Message | null>(null);
  const refresh = useRefresh();
  const query = new URLSearchParams({
    ...(status ? { status } : {}),
    ...(direction ? { direction } : {}),
    ...(search ? { q: search } : {}),
  }).toString();
  const messages = usePagedList<Message>(
    queryKeys.messages.list({ status, direction, q: search }),
    `/api/v1/messages${query ? `?${query}` : ''}`,
  );
  const cancel = useMutation({
    mutationFn: (id: string) => api(`/api/v1/messages/${id}/cancel`, { method: 'POST' }),
    onSuccess: () => {
      setCancelling(null);
      return refresh('messages', 'balance', 'ledger', 'groups');
    },
  });
  return (
    <Section title="Messages">
      <ComposeForm />
      <div className="mb-4 flex flex-wrap gap-4 text-sm">
        <label className="flex items-center gap-2">
          Search
          <input
            type="search"
            className="rounded-md border border-slate-300 px-2 py-1"
            placeholder="Text or +1415…"
            value={typed}
            onChange={(e) => setTyped(e.target.value)}
            maxLength={100}
          />
        </label>
        <label className="flex items-center gap-2">
          Status
          <select
            className="rounded-md border border-slate-300 px-2 py-1"
            value={status}
            onChange={(e) => setStatus(e.target.value)}
          >
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s || 'any'}
              </option>
            ))}
          </select>
        </label>
        <label className="flex items-center gap-2">
          Direction
          <select
            className="rounded-md border border-slate-300 px-2 py-1"
            value={direction}
            onChange={(e) => setDirection(e.target.value)}
          >
            <option value="">any</option>
            <option value="outbound">outbound</option>
            <option value="inbound">inbound</option>
          </select>
        </label>
      </div>
      <ListView list={messages} empty={<EmptyState title="No messages" />}>
        {(items) => (
          <Table columns={['When', 'From → To', 'Message', 'Status', '']}>
            {items.map((m) => (
              <tr key={m.id} className="border-t border-slate-100 align-top">
                <td className="py-2 whitespace-nowrap">{formatTime(m.created_at)}</td>
                <td className="whitespace-nowrap">
                  {m.from} → {m.to}
                  {(m.sim !== null || m.from_group !== null) && (
                    <span className="block text-xs text-slate-600">
                      {[m.sim !== null && `SIM ${m.sim}`, m.from_group !== null && `via group ${m.from_group}`]
                        .filter(Boolean)
                        .join(' · ')}
                    </span>
                  )}
                </td>
                <td className="max-w-xs truncate" title={m.content}>
                  <Link href={`/dashboard/messages/${m.id}`} className="underline">
                    {m.content}
                  </Link>
                </td>
                <td>
                  <MessageStatusBadge status={m.status} />
                  {m.priority === 'high' && <span className="block text-xs font-semibold text-amber-900">high</span>}
                </td>
                <td className="text-right">
                  {m.status === 'queued' && (
                    <Button
                      variant="secondary"
                      onClick={() => setCancelling(m)}
                      aria-label={`Cancel message to ${m.to}`}
                    >
                      Cancel
                    </Button>
                  )}
                </td>
              </tr>
            ))}
          </Table>
        )}
      </ListView>
      <ConfirmDialog
        open={cancelling !== null}
        title={`Cancel the message to ${cancelling?.to ?? ''}?`}
        confirmLabel="Cancel message"
        pending={cancel.isPending}
        onConfirm={() => cancelling && cancel.mutate(cancelling.id)}
        onCancel={() => setCancelling(null)}
      >
        It will not be sent, and its credit goes back to its group. A phone that already took it cannot be stopped.
        {cancel.error && <ErrorState error={cancel.error} />}
      </ConfirmDialog>
    </Section>
  );
}
