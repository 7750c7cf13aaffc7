'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import dynamic from 'next/dynamic';
import { useId, useState } from 'react';
import { LEDGER_KIND_LABELS, LEDGER_KINDS } from '@/components/credits/ledger-labels';
import { queryKeys } from '@/components/query-keys';
import type { Balances as Balance, BalanceHistory, LedgerEntry as LedgerRow } from '@/components/wire';

import { ApiProblem, api } from '../api';
import { useGroups } from '../lists';
import { Button } from '../ui/button';
import { Field } from '../ui/field';
import { ListView, Table } from '../ui/list-view';
import { formatTime, Section } from '../ui/section';
import { EmptyState, ErrorState, Loading } from '../ui/states';
import { usePagedList } from '../use-paged-list';
import { useRefresh } from '../use-refresh';

const CHART_HEIGHT = 'h-[220px]';
/** The chart library is only fetched by a page that draws a chart. */
const BalanceChart = dynamic(() => import('@/components/credits/balance-chart'), {
  ssr: false,
  loading: () => <div className={`${CHART_HEIGHT} animate-pulse rounded bg-slate-100`} />,
});

const SELECT =
  'rounded-md border border-slate-300 px-2 py-1.5 text-sm focus-visible:outline-2 focus-visible:outline-slate-900 aria-invalid:border-red-600';

/** A labelled select with its error announced, like `Field` for inputs. */
function SelectField({
  id,
  label,
  error,
  children,
  ...props
}: React.SelectHTMLAttributes<HTMLSelectElement> & { id: string; label: string; error?: string }) {
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="text-sm font-medium text-slate-800">
        {label}
      </label>
      <select
        id={id}
        className={SELECT}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        {...props}
      >
        {children}
      </select>
      {error && (
        <p id={`${id}-error`} className="text-xs text-red-700">
          {error}
        </p>
      )}
    </div>
  );
}

/** Where the transfer's refusals belong: the API's field errors, and its codes placed at their field. */
function transferErrors(problem: ApiProblem | undefined) {
  const at = (path: string) => problem?.fieldError(path);
  return {
    from_group: at('from_group'),
    to_group: at('to_group') ?? (problem?.code === 'GROUP_NOT_FOUND' ? problem.message : undefined),
    amount: at('amount') ?? (problem?.code === 'INSUFFICIENT_CREDITS' ? problem.message : undefined),
  };
}

export function CreditsPanel() {
  const balance = useQuery({
    queryKey: queryKeys.balance.root,
    queryFn: () => api<Balance>('/api/v1/credits/balance'),
  });
  const groups = balance.data?.data ?? [];
  return (
    <>
      <Section title="Credits">
        {balance.isPending ? (
          <Loading rows={1} />
        ) : balance.error ? (
          <ErrorState error={balance.error} onRetry={() => balance.refetch()} />
        ) : (
          <>
            <p className="text-sm text-slate-700">
              Total: <strong data-testid="credits-total">{balance.data.total}</strong> credits across {groups.length}{' '}
              group(s).
            </p>
            <ul className="mt-3 flex flex-wrap gap-2 text-sm" aria-label="Balance per group">
              {groups.map((g) => (
                <li key={g.group_id} className="rounded-md border border-slate-200 px-3 py-1.5">
                  {g.name}: <strong className="tabular-nums">{g.balance}</strong>
                </li>
              ))}
            </ul>
          </>
        )}
      </Section>
      <TransferSection groups={groups} />
      <LedgerSection groups={groups} />
    </>
  );
}

type GroupBalance = Balance['data'][number];

function TransferSection({ groups }: { groups: GroupBalance[] }) {
  const refresh = useRefresh();
  const [form, setForm] = useState({ from_group: '', to_group: '', amount: '' });
  const ids = useId();
  const transfer = useMutation({
    meta: { success: 'Credits transferred' },
    mutationFn: () =>
      api('/api/v1/credits/transfer', {
        body: {
          ...(form.from_group ? { from_group: Number(form.from_group) } : {}),
          to_group: Number(form.to_group),
          amount: Number(form.amount),
        },
      }),
    onSuccess: () => {
      setForm({ from_group: '', to_group: '', amount: '' });
      return refresh('balance', 'ledger', 'groups');
    },
  });
  const problem = transfer.error instanceof ApiProblem ? transfer.error : undefined;
  const errors = transferErrors(problem);
  const placed = errors.from_group || errors.to_group || errors.amount;
  const groupList = useGroups();
  const defaultId = groupList.data?.find((g) => g.is_default)?.id;
  const defaultGroup = groups.find((g) => g.group_id === defaultId);
  const fromGroup = form.from_group ? groups.find((g) => g.group_id === Number(form.from_group)) : defaultGroup;
  const toGroup = groups.find((g) => g.group_id === Number(form.to_group));
  const amount = Number(form.amount);
  const preview =
    fromGroup && toGroup && Number.isInteger(amount) && amount > 0 ? { fromGroup, toGroup, amount } : null;
  const edit = (patch: Partial<typeof form>) => {
    transfer.reset();
    setForm({ ...form, ...patch });
  };

  return (
    <Section title="Transfer credits">
      <form
        className="grid grid-cols-1 items-start gap-3 sm:grid-cols-4"
        onSubmit={(event) => {
          event.preventDefault();
          transfer.mutate();
        }}
      >
        <SelectField
          id={`${ids}-from`}
          label="From group"
          value={form.from_group}
          error={errors.from_group}
          onChange={(e) => edit({ from_group: e.target.value })}
        >
          <option value="">Default group</option>
          {groups.map((g) => (
            <option key={g.group_id} value={g.group_id}>
              {g.name} ({g.balance})
            </option>
          ))}
        </SelectField>
        <SelectField
          id={`${ids}-to`}
          label="To group"
          required
          value={form.to_group}
          error={errors.to_group}
          onChange={(e) => edit({ to_group: e.target.value })}
        >
          <option value="" disabled>
            Choose…
          </option>
          {groups.map((g) => (
            <option key={g.group_id} value={g.group_id}>
              {g.name} ({g.balance})
            </option>
          ))}
        </SelectField>
        <Field
          id={`${ids}-amount`}
          label="Amount"
          type="number"
          inputMode="numeric"
          min={1}
          step={1}
          required
          value={form.amount}
          onChange={(e) => edit({ amount: e.target.value })}
          error={errors.amount}
        />
        <Button type="submit" className="sm:mt-6" disabled={transfer.isPending}>
          {transfer.isPending ? 'Transferring…' : 'Transfer'}
        </Button>
      </form>
      {preview && (
        <p className="mt-4 text-sm text-slate-700" data-testid="transfer-preview">
          {preview.fromGroup.group_id === preview.toGroup.group_id ? (
            'Choose two different groups.'
          ) : (
            <>
              After the transfer: {preview.fromGroup.name} {preview.fromGroup.balance} →{' '}
              <strong>{preview.fromGroup.balance - preview.amount}</strong>, {preview.toGroup.name}{' '}
              {preview.toGroup.balance} → <strong>{preview.toGroup.balance + preview.amount}</strong>.
              {preview.fromGroup.balance < preview.amount && (
                <span className="text-red-800"> {preview.fromGroup.name} does not have that many credits.</span>
              )}
            </>
          )}
        </p>
      )}
      {transfer.error && !placed && (
        <div className="mt-4">
          <ErrorState error={transfer.error} />
        </div>
      )}
    </Section>
  );
}

function LedgerSection({ groups }: { groups: GroupBalance[] }) {
  const [filters, setFilters] = useState({ group_id: '', kind: '', since: '', until: '' });
  const ids = useId();
  // Days are the viewer's own: from the start of the first to the end of the last.
  const createdAfter = filters.since ? new Date(`${filters.since}T00:00:00`).toISOString() : '';
  const createdBefore = filters.until
    ? new Date(new Date(`${filters.until}T00:00:00`).getTime() + 86_400_000).toISOString()
    : '';
  const params = {
    ...(filters.group_id ? { group_id: filters.group_id } : {}),
    ...(filters.kind ? { kind: filters.kind } : {}),
    ...(createdAfter ? { created_after: createdAfter } : {}),
    ...(createdBefore ? { created_before: createdBefore } : {}),
  };
  const query = new URLSearchParams(params).toString();
  const ledger = usePagedList<LedgerRow>(
    queryKeys.ledger.list(params),
    `/api/v1/credits/ledger${query ? `?${query}` : ''}`,
  );
  const history = useQuery({
    queryKey: queryKeys.ledger.history(filters.group_id),
    queryFn: () =>
      api<BalanceHistory>(
        `/api/v1/credits/balance-history?days=30${filters.group_id ? `&group_id=${filters.group_id}` : ''}`,
      ),
  });
  const groupName = (id: number) => groups.find((g) => g.group_id === id)?.name ?? `#${id}`;
  const subject = filters.group_id ? groupName(Number(filters.group_id)) : 'All groups';
  const days = history.data?.days ?? [];
  const first = days[0];
  const last = days.at(-1);

  return (
    <>
      <Section title="Balance over 30 days">
        {history.isPending ? (
          <div className={`${CHART_HEIGHT} animate-pulse rounded bg-slate-100`} />
        ) : history.isError ? (
          <ErrorState error={history.error} onRetry={() => history.refetch()} />
        ) : (
          <figure className="m-0 min-w-0">
            <div
              aria-hidden="true"
              className="w-full min-w-0 overflow-hidden"
              data-testid="balance-chart"
              data-points={days.length}
              data-last={last?.balance}
            >
              <BalanceChart points={days} />
            </div>
            <figcaption className="mt-2 text-sm text-slate-600">
              {subject}: {first ? `${first.balance} on ${first.date}` : ''}
              {last ? `, ${last.balance} at the end of ${last.date} (UTC days).` : ''} Follows the ledger’s group
              filter.
            </figcaption>
          </figure>
        )}
      </Section>
      <Section title="Ledger">
        <div className="mb-4 grid grid-cols-2 gap-3 sm:grid-cols-4">
          <SelectField
            id={`${ids}-group`}
            label="Group"
            value={filters.group_id}
            onChange={(e) => setFilters({ ...filters, group_id: e.target.value })}
          >
            <option value="">All groups</option>
            {groups.map((g) => (
              <option key={g.group_id} value={g.group_id}>
                {g.name}
              </option>
            ))}
          </SelectField>
          <SelectField
            id={`${ids}-kind`}
            label="Kind"
            value={filters.kind}
            onChange={(e) => setFilters({ ...filters, kind: e.target.value })}
          >
            <option value="">Any kind</option>
            {LEDGER_KINDS.map((kind) => (
              <option key={kind} value={kind}>
                {LEDGER_KIND_LABELS[kind]}
              </option>
            ))}
          </SelectField>
          <Field
            id={`${ids}-since`}
            label="Since"
            type="date"
            value={filters.since}
            max={filters.until || undefined}
            onChange={(e) => setFilters({ ...filters, since: e.target.value })}
          />
          <Field
            id={`${ids}-until`}
            label="Until"
            type="date"
            value={filters.until}
            min={filters.since || undefined}
            onChange={(e) => setFilters({ ...filters, until: e.target.value })}
          />
        </div>
        <ListView
          list={ledger}
          empty={
            <EmptyState title="No credit movements">
              {query ? 'Nothing matches these filters.' : 'Transfers, charges and refunds show here.'}
            </EmptyState>
          }
        >
          {(items) => (
            <Table
              columns={[
                'When',
                'Group',
                'Kind',
                { label: 'Amount', align: 'right' },
                { label: 'Balance after', align: 'right' },
              ]}
            >
              {items.map((row) => (
                <tr key={row.id} className="border-t border-slate-100">
                  <td className="py-2">{formatTime(row.created_at)}</td>
                  <td>{groupName(row.group_id)}</td>
                  <td>{LEDGER_KIND_LABELS[row.kind]}</td>
                  <td className="text-right tabular-nums">{row.amount > 0 ? `+${row.amount}` : row.amount}</td>
                  <td className="text-right tabular-nums">{row.balance_after}</td>
                </tr>
              ))}
            </Table>
          )}
        </ListView>
      </Section>
    </>
  );
}
