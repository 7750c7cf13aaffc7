'use client';

import Link from 'next/link';
import { useEffect, useId, useRef } from 'react';
import type { Contact } from '@/components/wire';
import { Button } from '../ui/button';
import { formatTime } from '../ui/section';

/** The dashboard's link to the conversation with `number`. */
export function conversationHref(number: string): string {
  return `/dashboard/messages?q=${encodeURIComponent(number)}&view=conversations`;
}

/** One contact: its fields, whether its number opted out, and the way to its conversation. */
export function ContactDetailsDialog({ contact, onClose }: { contact: Contact | null; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (contact && !dialog.open) dialog.showModal();
    if (!contact && dialog.open) dialog.close();
  }, [contact]);
  return (
    <dialog
      ref={ref}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      aria-labelledby={titleId}
      className="m-auto w-[calc(100%-2rem)] max-w-md rounded-lg p-6 shadow-xl backdrop:bg-slate-900/40"
    >
      <h2 id={titleId} className="text-lg font-semibold break-words">
        {contact?.name ?? contact?.number ?? ''}
      </h2>
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
    </dialog>
  );
}
