'use client';

import Link from 'next/link';
import { MessageText, messageTextLabel } from '@/components/messages/message-text';
import { MessageStatusBadge } from '@/components/messages/status-badge';
import { queryKeys } from '@/components/query-keys';
import type { Message, Phone } from '@/components/wire';
import { ListView, Table } from '../ui/list-view';
import { RelativeTime } from '../ui/relative-time';
import { Section } from '../ui/section';
import { EmptyState } from '../ui/states';
import { usePagedList } from '../use-paged-list';

const LINK =
  'underline decoration-slate-400 underline-offset-2 hover:decoration-slate-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-slate-900';

/** The phone's latest messages, both ways, newest first; the full list is the messages screen filtered to it. */
export function PhoneMessages({ phone }: { phone: Phone }) {
  const filters = { phone: phone.phone, limit: '10' };
  const messages = usePagedList<Message>(
    queryKeys.messages.list(filters),
    `/api/v1/messages?${new URLSearchParams(filters)}`,
    { refetchInterval: 15_000 },
  );
  return (
    <Section
      title="Messages"
      actions={
        <Link href={`/dashboard/messages?phone=${encodeURIComponent(phone.phone)}`} className={`text-sm ${LINK}`}>
          All messages of this phone
        </Link>
      }
    >
      <ListView
        list={messages}
        empty={
          <EmptyState title="No messages yet">
            Messages this phone sends or receives show here. Send one from{' '}
            <Link href="/dashboard/messages" className={LINK}>
              Messages
            </Link>
            .
          </EmptyState>
        }
      >
        {(items) => (
          <Table columns={['When', 'With', 'Message', 'Status']}>
            {items.map((m) => (
              <tr key={m.id} className="border-t border-slate-100 align-top">
                <td className="py-2 whitespace-nowrap">
                  <RelativeTime value={m.created_at} />
                </td>
                <td className="whitespace-nowrap">{m.direction === 'inbound' ? `from ${m.from}` : `to ${m.to}`}</td>
                <td className="max-w-xs truncate" title={messageTextLabel(m)}>
                  <Link href={`/dashboard/messages/${m.id}`} className={LINK}>
                    <MessageText message={m} />
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
