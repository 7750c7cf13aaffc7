'use client';

import Link from 'next/link';
import { useState } from 'react';
import { ComposeForm } from '@/components/messages/compose-form';
import { MESSAGE_STATUSES, MessageStatusBadge } from '@/components/messages/status-badge';
import { queryKeys } from '@/components/query-keys';
import type { Message } from '@/components/wire';
import { ListView, Table } from '../ui/list-view';
import { formatTime, Section } from '../ui/section';
import { EmptyState } from '../ui/states';
import { usePagedList } from '../use-paged-list';

const STATUSES = ['', ...MESSAGE_STATUSES];

export function MessagesPanel() {
  const [status, setStatus] = useState('');
  const [direction, setDirection] = useState('');
  const query = new URLSearchParams({ ...(status ? { status } : {}), ...(direction ? { direction } : {}) }).toString();
  const messages = usePagedList<Message>(
    queryKeys.messages.list({ status, direction }),
    `/api/v1/messages${query ? `?${query}` : ''}`,
  );
  return (
    <Section title="Messages">
      <ComposeForm />
      <div className="mb-4 flex flex-wrap gap-4 text-sm">
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
          <Table columns={['When', 'From → To', 'Message', 'Status']}>
            {items.map((m) => (
              <tr key={m.id} className="border-t border-slate-100 align-top">
                <td className="py-2 whitespace-nowrap">{formatTime(m.created_at)}</td>
                <td className="whitespace-nowrap">
                  {m.from} → {m.to}
                </td>
                <td className="max-w-xs truncate" title={m.content}>
                  <Link href={`/dashboard/messages/${m.id}`} className="underline">
                    {m.content}
                  </Link>
                </td>
                <td>
                  <MessageStatusBadge status={m.status} />
                </td>
              </tr>
            ))}
          </Table>
        )}
      </ListView>
    </Section>
  );
}
