'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useEffect, useState } from 'react';
import { ComposeForm } from '@/components/messages/compose-form';
import { MESSAGE_STATUSES, MessageStatusBadge } from '@/components/messages/status-badge';
import { queryKeys } from '@/components/query-keys';
import type { Message } from '@/components/wire';
import { api, type Page } from '../api';
import { usePhones } from '../lists';
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
  const initialParams = useSearchParams();
  const [status, setStatus] = useState('');
  const [direction, setDirection] = useState('');
  // A phone's page links here with `?phone=` to show all of its messages.
  const [phone, setPhone] = useState(() => initialParams.get('phone') ?? '');
  const [fromDay, setFromDay] = useState('');
  const [toDay, setToDay] = useState('');
  const [view, setView] = useState<'list' | 'conversations'>('list');
  const [typed, search, setTyped] = useSearchInUrl();
  const phones = usePhones();
  const [cancelling, setCancelling] = useState<Message | null>(null);
  const refresh = useRefresh();
  // Days are the viewer's own: from the start of the first to the end of the last.
  const createdAfter = fromDay ? new Date(`${fromDay}T00:00:00`).toISOString() : '';
  const createdBefore = toDay ? new Date(new Date(`${toDay}T00:00:00`).getTime() + 86_400_000).toISOString() : '';
  const filters = {
    ...(status ? { status } : {}),
    ...(direction ? { direction } : {}),
    ...(search ? { q: search } : {}),
    ...(phone ? { phone } : {}),
    ...(createdAfter ? { created_after: createdAfter } : {}),
    ...(createdBefore ? { created_before: createdBefore } : {}),
  };
  const query = new URLSearchParams(filters).toString();
  const messages = usePagedList<Message>(
    queryKeys.messages.list(filters),
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
        <label className="flex items-center gap-2">
          Phone
          <select
            className="rounded-md border border-slate-300 px-2 py-1"
            aria-label="Phone"
            value={phone}
            onChange={(e) => setPhone(e.target.value)}
          >
            <option value="">any</option>
            {(phones.data ?? []).map((option) => (
              <option key={option.id} value={option.phone}>
                {option.label ? `${option.label} (${option.phone})` : option.phone}
              </option>
            ))}
          </select>
        </label>
        <label className="flex items-center gap-2">
          Since
          <input
            type="date"
            className="rounded-md border border-slate-300 px-2 py-1"
            value={fromDay}
            max={toDay || undefined}
            onChange={(e) => setFromDay(e.target.value)}
          />
        </label>
        <label className="flex items-center gap-2">
          Until
          <input
            type="date"
            className="rounded-md border border-slate-300 px-2 py-1"
            value={toDay}
            min={fromDay || undefined}
            onChange={(e) => setToDay(e.target.value)}
          />
        </label>
      </div>
      <fieldset className="mb-4 flex gap-4 text-sm">
        <legend className="sr-only">View</legend>
        {(
          [
            ['list', 'List'],
            ['conversations', 'Conversations'],
          ] as const
        ).map(([value, label]) => (
          <label key={value} className="flex items-center gap-2">
            <input type="radio" name="messages-view" checked={view === value} onChange={() => setView(value)} />
            {label}
          </label>
        ))}
      </fieldset>
      <ListView
        list={messages}
        empty={
          <EmptyState title="No messages">
            {query ? 'Nothing matches these filters.' : 'Send one above, or connect a phone to receive them.'}
          </EmptyState>
        }
      >
        {(items) =>
          view === 'conversations' ? (
            <Conversations messages={items} />
          ) : (
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
          )
        }
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

/** The number on the other side of a message: its recipient, or the sender of an inbound one. */
function counterpartOf(message: Message): string {
  return message.direction === 'outbound' ? message.to : message.from;
}

/**
 * The messages grouped by the number on the other side, newest conversation first; one opens as a
 * thread, inbound on the left and outbound on the right, oldest first, as a messaging app shows it.
 */
function Conversations({ messages }: { messages: Message[] }) {
  const groups = new Map<string, Message[]>();
  for (const message of messages) {
    const key = counterpartOf(message);
    groups.set(key, [...(groups.get(key) ?? []), message]);
  }
  const [open, setOpen] = useState<string | null>(null);
  const selected = open ?? [...groups.keys()][0] ?? null;
  return (
    <div className="grid gap-4 md:grid-cols-[16rem_minmax(0,1fr)]">
      <ul className="flex flex-col gap-1" aria-label="Conversations">
        {[...groups.entries()].map(([number, thread]) => (
          <li key={number}>
            <button
              type="button"
              aria-current={number === selected ? 'true' : undefined}
              onClick={() => setOpen(number)}
              className={`w-full rounded-md px-3 py-2 text-left text-sm focus-visible:outline-2 focus-visible:outline-slate-900 ${number === selected ? 'bg-slate-900 text-white' : 'hover:bg-slate-100'}`}
            >
              <span className="block font-mono">{number}</span>
              <span className={`block truncate text-xs ${number === selected ? 'text-slate-200' : 'text-slate-600'}`}>
                {thread[0]?.content} · {thread.length} message{thread.length === 1 ? '' : 's'}
              </span>
            </button>
          </li>
        ))}
      </ul>
      {selected && <Thread counterpart={selected} />}
    </div>
  );
}

function Thread({ counterpart }: { counterpart: string }) {
  const thread = useQuery({
    queryKey: queryKeys.messages.thread(counterpart),
    queryFn: () => api<Page<Message>>(`/api/v1/messages?q=${encodeURIComponent(counterpart)}&limit=100`),
  });
  if (thread.isPending) return <p className="text-sm text-slate-600">Loading the conversation…</p>;
  if (thread.error) return <ErrorState error={thread.error} onRetry={() => thread.refetch()} />;
  const messages = thread.data.data.filter((message) => counterpartOf(message) === counterpart).reverse();
  return (
    <section aria-label={`Conversation with ${counterpart}`} className="flex flex-col gap-2">
      <h3 className="font-mono text-sm font-semibold">{counterpart}</h3>
      <ol className="flex flex-col gap-2">
        {messages.map((message) => (
          <li key={message.id} className={`flex ${message.direction === 'outbound' ? 'justify-end' : 'justify-start'}`}>
            <Link
              href={`/dashboard/messages/${message.id}`}
              className={`max-w-[80%] rounded-lg px-3 py-2 text-sm ${message.direction === 'outbound' ? 'bg-slate-900 text-white' : 'border border-slate-200 bg-white'}`}
            >
              <span className="block whitespace-pre-wrap break-words">{message.content}</span>
              <span
                className={`mt-1 block text-xs ${message.direction === 'outbound' ? 'text-slate-200' : 'text-slate-600'}`}
              >
                {formatTime(message.created_at)} · {message.status}
                {message.direction === 'outbound' ? ` · from ${message.from}` : ` · to ${message.to}`}
              </span>
            </Link>
          </li>
        ))}
      </ol>
    </section>
  );
}
