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
 * Below `sm` a table does not fit 390 px: each row stacks its cells as a card instead of scrolling
 * sideways (the header row stays for screen readers).
 */
const STACKED =
  'max-sm:block max-sm:[&_tbody]:block max-sm:[&_tbody_tr]:block max-sm:[&_tbody_tr]:py-2 max-sm:[&_td]:block max-sm:[&_td]:max-w-full max-sm:[&_td]:py-0.5 max-sm:[&_td]:whitespace-normal max-sm:[&_td]:break-words max-sm:[&_td]:text-left';

/** A column's header: its label, right-aligned over numbers. */
export type Column = string | { label: string; align: 'right' };

/** A table with a header row; an empty column label names the actions column for screen readers. */
export function Table({ columns, children }: { columns: Column[]; children: ReactNode }) {
  return (
    <table className={`w-full text-left text-sm ${STACKED}`}>
      <thead className="text-slate-500 max-sm:sr-only">
        <tr>
          {columns.map((column, index) => {
            const label = typeof column === 'string' ? column : column.label;
            const right = typeof column !== 'string' && column.align === 'right';
            return (
              <th key={label || `actions-${index}`} className={`py-2 ${right ? 'text-right' : ''}`}>
                {label || <span className="sr-only">Actions</span>}
              </th>
            );
          })}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}
