import type { ReactNode } from 'react';
import type { usePagedList } from '../use-paged-list';
import { LoadMore } from './load-more';
import { ErrorState, Loading } from './states';

type PagedList<T> = ReturnType<typeof usePagedList<T>>;

/** A paged list in its four states: loading, failed (with a retry), empty, and its rows with "load more". */
export function ListView<T>({
  list,
  empty,
  children,
}: {
  list: PagedList<T>;
  empty: ReactNode;
  children: (items: T[]) => ReactNode;
}) {
  if (list.isPending) return <Loading />;
  if (list.error) return <ErrorState error={list.error} onRetry={() => list.refetch()} />;
  return (
    <>
      {list.items.length === 0 ? empty : children(list.items)}
      <LoadMore {...list} />
    </>
  );
}

/**
 * A table with a header row; an empty column label names the actions column for screen readers.
 * On a narrow screen the table scrolls inside its own box, never the page.
 */
export function Table({ columns, children }: { columns: string[]; children: ReactNode }) {
  return (
    // `relative`: the header's screen-reader-only label is absolutely placed and must stay inside the scroller.
    <div className="relative overflow-x-auto">
      <table className="w-full text-left text-sm">
        <thead className="text-slate-500">
          <tr>
            {columns.map((label, index) => (
              <th key={label || `actions-${index}`} className="py-2">
                {label || <span className="sr-only">Actions</span>}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
