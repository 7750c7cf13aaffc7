'use client';

import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import type { Contact } from '@/components/wire';
import { ApiProblem, api } from '../api';
import { Button } from '../ui/button';
import { Field } from '../ui/field';
import { Modal } from '../ui/modal';
import { useRefresh } from '../use-refresh';

/** Tags as typed: separated by commas, semicolons or spaces. */
function tagsOf(text: string): string[] {
  return text
    .split(/[\s,;|]+/)
    .map((tag) => tag.trim())
    .filter(Boolean);
}

/** Adding a contact (`contact` null) or changing one, in a modal dialog. */
export function ContactFormDialog({
  open,
  contact,
  onClose,
}: {
  open: boolean;
  contact: Contact | null;
  onClose: () => void;
}) {
  return (
    <Modal open={open} title={contact ? `Edit ${contact.name ?? contact.number}` : 'Add a contact'} onClose={onClose}>
      {open && <ContactForm key={contact?.id ?? 'new'} contact={contact} onDone={onClose} />}
    </Modal>
  );
}

function ContactForm({ contact, onDone }: { contact: Contact | null; onDone: () => void }) {
  const [form, setForm] = useState({
    name: contact?.name ?? '',
    number: contact?.number ?? '',
    tags: contact?.tags.join(', ') ?? '',
    notes: contact?.notes ?? '',
  });
  const refresh = useRefresh();
  const save = useMutation({
    mutationFn: () => {
      const body = {
        name: form.name,
        number: form.number.replace(/[\s().-]/g, ''),
        tags: tagsOf(form.tags),
        notes: form.notes,
      };
      return contact
        ? api<Contact>(`/api/v1/contacts/${contact.id}`, { method: 'PATCH', body })
        : api<Contact>('/api/v1/contacts', { body });
    },
    onSuccess: async () => {
      await refresh('contacts', 'messages');
      onDone();
    },
  });
  const problem = save.error instanceof ApiProblem ? save.error : undefined;
  const tagError = problem?.errors.find((error) => error.path.startsWith('tags'))?.message;
  return (
    <form
      className="mt-4 flex flex-col gap-3"
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate();
      }}
    >
      <Field
        id="contact-name"
        label="Name"
        value={form.name}
        maxLength={100}
        onChange={(event) => setForm({ ...form, name: event.target.value })}
        error={problem?.fieldError('name')}
      />
      <Field
        id="contact-number"
        label="Number (E.164, e.g. +14155550123)"
        required
        inputMode="tel"
        value={form.number}
        onChange={(event) => setForm({ ...form, number: event.target.value })}
        error={problem?.fieldError('number') ?? (problem?.code === 'CONFLICT' ? problem.message : undefined)}
      />
      <Field
        id="contact-tags"
        label="Tags"
        hint="Separated by commas: lower-case letters, digits, _ and -. A bulk message can go to every contact with a tag."
        value={form.tags}
        onChange={(event) => setForm({ ...form, tags: event.target.value })}
        error={tagError}
      />
      <div className="flex flex-col gap-1">
        <label htmlFor="contact-notes" className="text-sm font-medium text-slate-800">
          Notes
        </label>
        <textarea
          id="contact-notes"
          rows={3}
          maxLength={1000}
          className="rounded-md border border-slate-300 px-3 py-1.5 text-sm"
          value={form.notes}
          onChange={(event) => setForm({ ...form, notes: event.target.value })}
        />
      </div>
      {problem && !problem.errors.length && problem.code !== 'CONFLICT' && (
        <p role="alert" className="text-sm text-red-700">
          {problem.message}
        </p>
      )}
      <div className="mt-2 flex justify-end gap-2">
        <Button variant="secondary" onClick={onDone}>
          Cancel
        </Button>
        <Button type="submit" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save contact'}
        </Button>
      </div>
    </form>
  );
}
