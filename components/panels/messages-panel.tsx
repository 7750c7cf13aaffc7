'use client';

import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { queryKeys } from '@/components/query-keys';
import type { Message } from '@/components/wire';
import { ApiProblem, api } from '../api';
import { Button } from '../ui/button';
import { Field } from '../ui/field';
import { ListView, Table } from '../ui/list-view';
import { formatTime, Section } from '../ui/section';
import { EmptyState, ErrorState } from '../ui/states';
import { usePagedList } from '../use-paged-list';
import { useRefresh } from '../use-refresh';

const STATUSES = ['', 'queued', 'dispatched', 'sent', 'delivered', 'failed', 'expired', 'received'];

export function MessagesPanel() {
  const refresh = useRefresh();
  const [status, setStatus] = useState('');
  const [direction, setDirection] = useState('');
  const query = new URLSearchParams({ ...(status ? { status } : {}), ...(direction ? { direction } : {}) }).toString();
  const messages = usePagedList<Message>(
    queryKeys.messages.list({ status, direction }),
    `/api/v1/messages${query ? `?${query}` : ''}`,
  );
  const [form, setForm] = useState({ from: '', to: '', content: '' });
  const send = useMutation({
    meta: { success: 'Message queued' },
    mutationFn: () => api('/api/v1/messages', { body: form }),
    onSuccess: () => {
      setForm({ ...form, to: '', content: '' });
      return refresh('messages', 'balance', 'ledger', 'groups');
    },
  });
  const problem = send.error instanceof ApiProblem ? send.error : undefined;

  return (
    <Section title="Messages">
      <form
        className="mb-6 grid grid-cols-1 items-end gap-3 sm:grid-cols-4"
        onSubmit={(event) => {
          event.preventDefault();
          send.mutate();
        }}
      >
        <Field
          id="message-from"
          label="From (your phone)"
          required
          value={form.from}
          onChange={(e) => setForm({ ...form, from: e.target.value })}
          error={problem?.fieldError('from')}
        />
        <Field
          id="message-to"
          label="To"
          required
          value={form.to}
          onChange={(e) => setForm({ ...form, to: e.target.value })}
          error={problem?.fieldError('to')}
        />
        <Field
          id="message-content"
          label="Message"
          required
          maxLength={1600}
          value={form.content}
          onChange={(e) => setForm({ ...form, content: e.target.value })}
          error={problem?.fieldError('content')}
        />
        <Button type="submit" disabled={send.isPending}>
          {send.isPending ? 'Sending…' : 'Send'}
        </Button>
      </form>
      {problem && problem.errors.length === 0 && <ErrorState error={problem} />}
      <div className="mb-4 flex gap-4 text-sm">
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
                  {m.content}
                </td>
                <td>{m.status}</td>
              </tr>
            ))}
          </Table>
        )}
      </ListView>
    </Section>
  );
}
