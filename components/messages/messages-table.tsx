'use client';

import Link from 'next/link';
import { MessageStatusBadge } from '@/components/messages/status-badge';
import type { Message } from '@/components/wire';
import { Button } from '../ui/button';
import { Table } from '../ui/list-view';
import { formatTime } from '../ui/section';
import { MessageNumber, MessageText, messageTextLabel } from './message-text';

/** The messages as a table, with a cancel button on the queued ones. */
export function MessagesTable({ items, onCancel }: { items: Message[]; onCancel: (message: Message) => void }) {
  return (
    <Table columns={['When', 'From → To', 'Message', 'Status', '']}>
      {items.map((m) => (
        <tr key={m.id} className="border-t border-slate-100 align-top">
          <td className="py-2 whitespace-nowrap">{formatTime(m.created_at)}</td>
          <td className={m.encrypted ? 'max-w-xs break-all' : 'whitespace-nowrap'}>
            <MessageNumber message={m} number={m.from} /> → <MessageNumber message={m} number={m.to} />
            {(m.sim !== null || m.from_group !== null) && (
              <span className="block text-xs text-slate-600">
                {[m.sim !== null && `SIM ${m.sim}`, m.from_group !== null && `via group ${m.from_group}`]
                  .filter(Boolean)
                  .join(' · ')}
              </span>
            )}
          </td>
          <td className="max-w-xs truncate" title={messageTextLabel(m)}>
            <Link href={`/dashboard/messages/${m.id}`} className="underline">
              <MessageText message={m} />
            </Link>
          </td>
          <td>
            <MessageStatusBadge status={m.status} />
            {m.priority === 'high' && <span className="block text-xs font-semibold text-amber-900">high</span>}
          </td>
          <td className="text-right">
            {(m.status === 'queued' || m.status === 'dispatched') && (
              <Button
                variant="secondary"
                onClick={() => onCancel(m)}
                aria-label={m.encrypted ? 'Cancel the encrypted message' : `Cancel message to ${m.to}`}
              >
                Cancel
              </Button>
            )}
          </td>
        </tr>
      ))}
    </Table>
  );
}
