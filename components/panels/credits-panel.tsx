'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { queryKeys } from '@/components/query-keys';
import type { Balances as Balance, Group, LedgerEntry as LedgerRow } from '@/components/wire';
import { ApiProblem, api, type Page } from '../api';
import { Button } from '../ui/button';
import { Field } from '../ui/field';
import { ListView, Table } from '../ui/list-view';
import { formatTime, Section } from '../ui/section';
import { EmptyState, ErrorState, Loading } from '../ui/states';
import { usePagedList } from '../use-paged-list';
import { useRefresh } from '../use-refresh';

export function CreditsPanel() {
  const refresh = useRefresh();
  const balance = useQuery({
    queryKey: queryKeys.balance.root,
    queryFn: () => api<Balance>('/api/v1/credits/balance'),
  });
  const ledger = usePagedList<LedgerRow>(queryKeys.ledger.list(), '/api/v1/credits/ledger');
  const [form, setForm] = useState({ from_group: '', to_group: '', amount: '' });
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
  const groups = balance.data?.data ?? [];
  const groupList = useQuery({
    queryKey: queryKeys.groups.options(),
    queryFn: () => api<Page<Group>>('/api/v1/phone-groups?limit=100'),
  });
  const defaultId = groupList.data?.data.find((g) => g.is_default)?.id;
  const fromGroup = groups.find((g) => g.group_id === (form.from_group ? Number(form.from_group) : defaultId));
  const toGroup = groups.find((g) => g.group_id === Number(form.to_group));
  const amount = Number(form.amount);
  const preview =
    fromGroup && toGroup && Number.isInteger(amount) && amount > 0 ? { fromGroup, toGroup, amount } : null;

  return (
    <Section title="Credits">
      {balance.isPending ? (
        <Loading />
      ) : balance.error ? (
        <ErrorState error={balance.error} onRetry={() => balance.refetch()} />
      ) : (
        <p className="mb-4 text-sm text-slate-700">
          Total: <strong data-testid="credits-total">{balance.data.total}</strong> credits across {groups.length}{' '}
          group(s).
        </p>
      )}
      <form
        className="mb-6 grid grid-cols-1 items-end gap-3 sm:grid-cols-4"
        onSubmit={(event) => {
          event.preventDefault();
          transfer.mutate();
        }}
      >
        <label className="flex flex-col gap-1 text-sm font-medium">
          From group
          <select
            className="rounded-md border border-slate-300 px-2 py-1.5"
            value={form.from_group}
            onChange={(e) => setForm({ ...form, from_group: e.target.value })}
          >
            <option value="">Default group</option>
            {groups.map((g) => (
              <option key={g.group_id} value={g.group_id}>
                {g.name} ({g.balance})
              </option>
            ))}
          </select>
        </label>
        <label className="flex flex-col gap-1 text-sm font-medium">
          To group
          <select
            required
            className="rounded-md border border-slate-300 px-2 py-1.5"
            value={form.to_group}
            onChange={(e) => setForm({ ...form, to_group: e.target.value })}
          >
            <option value="" disabled>
              Choose…
            </option>
            {groups.map((g) => (
              <option key={g.group_id} value={g.group_id}>
                {g.name} ({g.balance})
              </option>
            ))}
          </select>
        </label>
        <Field
          id="transfer-amount"
          label="Amount"
          type="number"
          min={1}
          step={1}
          required
          value={form.amount}
          onChange={(e) => setForm({ ...form, amount: e.target.value })}
          error={problem?.fieldError('amount')}
        />
        <Button type="submit" disabled={transfer.isPending}>
          {transfer.isPending ? 'Transferring…' : 'Transfer'}
        </Button>
      </form>
      {preview && (
        <p className="mb-4 text-sm text-slate-700" data-testid="transfer-preview">
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
      {problem && !problem.fieldError('amount') && <ErrorState error={problem} />}
      <h3 className="mb-2 font-medium">Ledger</h3>
      <ListView list={ledger} empty={<EmptyState title="No credit movements yet" />}>
        {(items) => (
          <Table columns={['When', 'Group', 'Kind', 'Amount', 'Balance after']}>
            {items.map((row) => (
              <tr key={row.id} className="border-t border-slate-100">
                <td className="py-2">{formatTime(row.created_at)}</td>
                <td>{groups.find((g) => g.group_id === row.group_id)?.name ?? row.group_id}</td>
                <td>{row.kind.replaceAll('_', ' ')}</td>
                <td className="text-right tabular-nums">{row.amount > 0 ? `+${row.amount}` : row.amount}</td>
                <td className="text-right tabular-nums">{row.balance_after}</td>
              </tr>
            ))}
          </Table>
        )}
      </ListView>
    </Section>
  );
}
