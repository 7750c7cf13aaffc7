'use client';

import Link from 'next/link';
import type { Contact } from '@/components/wire';
import { Button } from '../ui/button';
import { Modal } from '../ui/modal';
import { formatTime } from '../ui/section';

/** The dashboard's link to the conversation with `number`. */
export function conversationHref(number: string): string {
  return `/dashboard/messages?q=${encodeURIComponent(number)}&view=conversations`;
}

/** One contact: its fields, whether its number opted out, and the way to its conversation. */
export function ContactDetailsDialog({ contact, onClose }: { contact: Contact | null; onClose: () => void }) {
  return (
    <Modal open={contact !== null} title={contact?.name ?? contact?.number ?? ''} onClose={onClose}>
      {contact && (
        <dl className="mt-4 grid grid-cols-1 gap-x-4 gap-y-2 text-sm sm:grid-cols-[max-content_1fr]">
          <dt className="font-medium text-slate-600">Number</dt>
          <dd className="font-mono">{contact.number}</dd>
          <dt className="font-medium text-slate-600">Opt-out</dt>
          <dd>
            {contact.opted_out ? (
              <span className="font-medium text-red-800">Opted out: sends to this number are refused</span>
            ) : (
              'Not opted out'
            )}
          </dd>
          <dt className="font-medium text-slate-600">Tags</dt>
          <dd>{contact.tags.length ? contact.tags.join(', ') : 'None'}</dd>
          <dt className="font-medium text-slate-600">Notes</dt>
          <dd className="whitespace-pre-wrap break-words">{contact.notes ?? 'None'}</dd>
          <dt className="font-medium text-slate-600">Added</dt>
          <dd>{formatTime(contact.created_at)}</dd>
        </dl>
      )}
      <div className="mt-6 flex flex-wrap justify-end gap-2">
        {contact && (
          <Link
            href={conversationHref(contact.number)}
            className="rounded-md border border-slate-300 px-3 py-1.5 text-sm font-medium hover:bg-slate-100"
          >
            Open the conversation
          </Link>
        )}
        <Button variant="secondary" onClick={onClose} autoFocus>
          Close
        </Button>
      </div>
    </Modal>
  );
}
