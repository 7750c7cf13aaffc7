'use client';

import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { Contact } from '@/components/wire';
import { api, type Page } from '../api';
import { queryKeys } from '../query-keys';

/** `value`, once it has stopped changing for `ms`. */
export function useSettled(value: string, ms = 250): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/**
 * The contacts matching what is typed in a number field, as its <datalist> (`list={id}` on the
 * input): the browser offers them as suggestions, each number labelled with its name.
 */
export function ContactSuggestions({ id, text }: { id: string; text: string }) {
  const search = useSettled(text.trim());
  const suggestions = useQuery({
    queryKey: queryKeys.contacts.suggestions(search),
    queryFn: () => api<Page<Contact>>(`/api/v1/contacts?limit=10&search=${encodeURIComponent(search)}`),
    enabled: search.length > 0,
    staleTime: 30_000,
  });
  return (
    <datalist id={id}>
      {(suggestions.data?.data ?? []).map((contact) => (
        <option key={contact.id} value={contact.number} label={contact.name ?? contact.number} />
      ))}
    </datalist>
  );
}
