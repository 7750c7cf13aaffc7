'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import { queryKeys } from '@/components/query-keys';
import type { Message } from '@/components/wire';
import { api, type Page } from '../api';
import { formatTime } from '../ui/section';
import { ErrorState } from '../ui/states';
import { counterpartOf, MessageNumber, MessageText, messageTextLabel } from './message-text';

/**
 * The messages grouped by the number on the other side, newest conversation first; one opens as a
 * thread, inbound on the left and outbound on the right, oldest first, as a messaging app shows it.
 */
export function Conversations({ messages }: { messages: Message[] }) {
  const groups = new Map<string, Message[]>();
  for (const message of messages) {
    const key = counterpartOf(message);
    groups.set(key, [...(groups.get(key) ?? []), message]);
  }
  const [open, setOpen] = useState<string | null>(null);
  const selected = open ?? [...groups.keys()][0] ?? null;
  return (
    <div className="grid grid-cols-[minmax(0,1fr)] gap-4 md:grid-cols-[16rem_minmax(0,1fr)]">
      <ul className="flex flex-col gap-1" aria-label="Conversations">
        {[...groups.entries()].map(([number, thread]) => (
          <li key={number}>
            <button
              type="button"
              aria-current={number === selected ? 'true' : undefined}
              onClick={() => setOpen(number)}
              className={`w-full rounded-md px-3 py-2 text-left text-sm focus-visible:outline-2 focus-visible:outline-slate-900 ${number === selected ? 'bg-slate-900 text-white' : 'hover:bg-slate-100'}`}
            >
              <span className="block font-mono break-all">
                {thread[0] ? <MessageNumber message={thread[0]} number={number} /> : number}
              </span>
              <span className={`block truncate text-xs ${number === selected ? 'text-slate-200' : 'text-slate-600'}`}>
                {thread[0] ? messageTextLabel(thread[0]) : ''} · {thread.length} message{thread.length === 1 ? '' : 's'}
              </span>
            </button>
          </li>
        ))}
      </ul>
      {selected && <Thread counterpart={selected} listed={groups.get(selected) ?? []} />}
    </div>
  );
}

/**
 * One conversation, fetched by its number; an encrypted number (its own ciphertext, which no search
 * can match) is the thread of the listed messages that carry it.
 */
function Thread({ counterpart, listed }: { counterpart: string; listed: Message[] }) {
  const first = listed[0];
  const encrypted = first?.encrypted === true;
  const thread = useQuery({
    queryKey: queryKeys.messages.thread(counterpart),
    queryFn: () => api<Page<Message>>(`/api/v1/messages?q=${encodeURIComponent(counterpart)}&limit=100`),
    enabled: !encrypted,
  });
  if (!encrypted && thread.isPending) return <p className="text-sm text-slate-600">Loading the conversation…</p>;
  if (!encrypted && thread.error) return <ErrorState error={thread.error} onRetry={() => thread.refetch()} />;
  const messages = (encrypted ? listed : (thread.data?.data ?? []))
    .filter((message) => counterpartOf(message) === counterpart)
    .reverse();
  return (
    <section
      aria-label={first?.encrypted ? 'Conversation with an encrypted number' : `Conversation with ${counterpart}`}
      className="flex flex-col gap-2"
    >
      <h3 className="font-mono text-sm font-semibold break-all">
        {first ? <MessageNumber message={first} number={counterpart} /> : counterpart}
      </h3>
      <ol className="flex flex-col gap-2">
        {messages.map((message) => (
          <li key={message.id} className={`flex ${message.direction === 'outbound' ? 'justify-end' : 'justify-start'}`}>
            <Link
              href={`/dashboard/messages/${message.id}`}
              className={`max-w-[80%] rounded-lg px-3 py-2 text-sm ${message.direction === 'outbound' ? 'bg-slate-900 text-white' : 'border border-slate-200 bg-white'}`}
            >
              <span className="block whitespace-pre-wrap break-words">
                <MessageText message={message} />
              </span>
              <span
                className={`mt-1 block text-xs ${message.direction === 'outbound' ? 'text-slate-200' : 'text-slate-600'}`}
              >
                {formatTime(message.created_at)} · {message.status}
                {message.direction === 'outbound' ? ` · from ${message.from}` : ` · to ${message.to}`}
                {message.encrypted ? ' · encrypted' : ''}
              </span>
            </Link>
          </li>
        ))}
      </ol>
    </section>
  );
}
