'use client';

import { useQuery } from '@tanstack/react-query';
import { api, type Page } from './api';
import { queryKeys } from './query-keys';
import { withCursor } from './use-paged-list';
import type { Group, Phone, Webhook } from './wire';

/** The API's largest page: whole lists are read in pages of this size. */
const PAGE_SIZE = 100;

/** Every item of a cursor-paginated list: follows `next_cursor` until the last page. */
export async function fetchAll<T>(
  path: string,
  fetchPage: (path: string) => Promise<Page<T>> = (p) => api<Page<T>>(p),
): Promise<T[]> {
  const first = `${path}${path.includes('?') ? '&' : '?'}limit=${PAGE_SIZE}`;
  const items: T[] = [];
  let cursor: string | null = null;
  do {
    const page: Page<T> = await fetchPage(withCursor(first, cursor));
    items.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return items;
}

type ListOptions = { refetchInterval?: number };

/** All phones of the account, for pickers and lookups (not a paginated screen: see `usePagedList`). */
export function usePhones(options: ListOptions = {}) {
  return useQuery({
    queryKey: queryKeys.phones.options(),
    queryFn: () => fetchAll<Phone>('/api/v1/phones'),
    refetchInterval: options.refetchInterval,
  });
}

/** All phone groups of the account, for pickers and lookups. */
export function useGroups() {
  return useQuery({
    queryKey: queryKeys.groups.options(),
    queryFn: () => fetchAll<Group>('/api/v1/phone-groups'),
  });
}

/** All webhooks of the account, for pickers. */
export function useWebhooks() {
  return useQuery({
    queryKey: queryKeys.webhooks.options(),
    queryFn: () => fetchAll<Webhook>('/api/v1/webhooks'),
  });
}
