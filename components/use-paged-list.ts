'use client';

import { useInfiniteQuery } from '@tanstack/react-query';
import { api, type Page } from './api';

/** `path` with `cursor=` appended, or `path` itself for the first page. */
export function withCursor(path: string, cursor: string | null): string {
  if (!cursor) return path;
  return `${path}${path.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor)}`;
}

/** A cursor-paginated list of the API as one growing list, with "load more"; `refetchInterval` keeps it live. */
export function usePagedList<T>(queryKey: unknown[], path: string, options: { refetchInterval?: number } = {}) {
  const query = useInfiniteQuery({
    queryKey,
    refetchInterval: options.refetchInterval,
    queryFn: ({ pageParam }) => api<Page<T>>(withCursor(path, pageParam)),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor,
  });
  const items = query.data?.pages.flatMap((page) => page.data) ?? [];
  return { ...query, items };
}
