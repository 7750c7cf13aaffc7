'use client';

import { useMutation } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import type { Contact } from '@/components/wire';
import { api } from '../api';
import { queryKeys } from '../query-keys';
import { Button } from '../ui/button';
import { ConfirmDialog } from '../ui/confirm';
import { ListView, Table } from '../ui/list-view';
import { Section } from '../ui/section';
import { EmptyState, ErrorState } from '../ui/states';
import { usePagedList } from '../use-paged-list';
import { useRefresh } from '../use-refresh';
import { ContactDetailsDialog, conversationHref } from './contact-details';
import { ContactFormDialog } from './contact-form';
import { useSettled } from './suggestions';

export function ContactsPanel() {
  const [search, setSearch] = useState('');
  const settled = useSettled(search.trim());
  const list = usePagedList<Contact>(
    queryKeys.contacts.list(settled),
    `/api/v1/contacts?limit=50${settled ? `&search=${encodeURIComponent(settled)}` : ''}`,
  );
  const [editing, setEditing] = useState<Contact | 'new' | null>(null);
  const [viewing, setViewing] = useState<Contact | null>(null);
  const [deleting, setDeleting] = useState<Contact | null>(null);
  const refresh = useRefresh();
  const remove = useMutation({
    mutationFn: (id: string) => api(`/api/v1/contacts/${id}`, { method: 'DELETE' }),
    onSuccess: async () => {
      setDeleting(null);
      await refresh('contacts', 'messages');
    },
  });
  return (
    <Section
      title="Contacts"
      actions={
        <div className="flex flex-wrap gap-2">
          <a
            href="/api/v1/contacts/export"
            download="contacts.csv"
            className="rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium hover:bg-slate-100"
          >
            Export CSV
          </a>
          <Button onClick={() => setEditing('new')}>Add contact</Button>
        </div>
      }
    >
      <div className="mb-4 flex flex-col gap-1">
        <label htmlFor="contact-search" className="text-sm font-medium text-slate-800">
          Search by name or number
        </label>
        <input
          id="contact-search"
          type="search"
          value={search}
          onChange={(event) => setSearch(event.target.value)}
          className="rounded-md border border-slate-300 px-3 py-1.5 text-sm"
        />
      </div>
      <ListView
        list={list}
        empty={
          <EmptyState title={settled ? 'No contact matches' : 'No contacts yet'}>
            {settled ? 'Try another name or number.' : 'Add one, or import a CSV file below.'}
          </EmptyState>
        }
      >
        {(items) => (
          <Table columns={['Name', 'Number', 'Tags', 'Status', '']}>
            {items.map((contact) => (
              <tr key={contact.id} className="border-t border-slate-100 align-top">
                <td className="py-2">
                  <button type="button" className="text-left font-medium underline" onClick={() => setViewing(contact)}>
                    {contact.name ?? 'No name'}
                  </button>
                </td>
                <td className="font-mono whitespace-nowrap">{contact.number}</td>
                <td>{contact.tags.join(', ')}</td>
                <td>
                  {contact.opted_out ? <span className="font-medium text-red-800">Opted out</span> : 'Can be texted'}
                </td>
                <td className="flex flex-wrap justify-end gap-2 max-sm:justify-start">
                  <Link href={conversationHref(contact.number)} className="px-1 py-1.5 text-sm underline">
                    Conversation
                    <span className="sr-only"> with {contact.name ?? contact.number}</span>
                  </Link>
                  <Button
                    variant="secondary"
                    onClick={() => setEditing(contact)}
                    aria-label={`Edit ${contact.name ?? contact.number}`}
                  >
                    Edit
                  </Button>
                  <Button
                    variant="secondary"
                    onClick={() => setDeleting(contact)}
                    aria-label={`Delete ${contact.name ?? contact.number}`}
                  >
                    Delete
                  </Button>
                </td>
              </tr>
            ))}
          </Table>
        )}
      </ListView>
      <ContactFormDialog
        open={editing !== null}
        contact={editing === 'new' ? null : editing}
        onClose={() => setEditing(null)}
      />
      <ContactDetailsDialog contact={viewing} onClose={() => setViewing(null)} />
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete ${deleting?.name ?? deleting?.number ?? ''}?`}
        confirmLabel="Delete contact"
        pending={remove.isPending}
        onConfirm={() => deleting && remove.mutate(deleting.id)}
        onCancel={() => setDeleting(null)}
      >
        Its messages stay; they will show the number alone.
        {remove.error && <ErrorState error={remove.error} />}
      </ConfirmDialog>
    </Section>
  );
}
