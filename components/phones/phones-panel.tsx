'use client';

import { type InfiniteData, useMutation, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import { queryKeys } from '@/components/query-keys';
import type { Phone } from '@/components/wire';
import { ApiProblem, api, type Page } from '../api';
import { useGroups } from '../lists';
import { BatteryGauge } from '../ui/battery-gauge';
import { Button } from '../ui/button';
import { Field } from '../ui/field';
import { ListView, Table } from '../ui/list-view';
import { RelativeTime } from '../ui/relative-time';
import { Section } from '../ui/section';
import { EmptyState, ErrorState } from '../ui/states';
import { usePagedList } from '../use-paged-list';
import { useRefresh } from '../use-refresh';
import { NearCapBadge, SimBadge, StatusBadge } from './badges';
import { RemovePhoneDialog } from './remove-phone-dialog';

export function PhonesPanel() {
  // Live: status, battery and last heartbeat change while the page is open.
  const phones = usePagedList<Phone>(queryKeys.phones.list(), '/api/v1/phones', { refetchInterval: 15_000 });
  const groups = useGroups();
  const [form, setForm] = useState({ phone: '', label: '' });
  const [deleting, setDeleting] = useState<Phone | null>(null);
  const refreshAll = useRefresh();
  const refresh = () => refreshAll('phones', 'groups');
  const create = useMutation({
    meta: { success: 'Phone added' },
    mutationFn: () =>
      api('/api/v1/phones', { body: { phone: form.phone, ...(form.label ? { label: form.label } : {}) } }),
    onSuccess: () => {
      setForm({ phone: '', label: '' });
      return refresh();
    },
  });
  const queryClient = useQueryClient();
  // Optimistic: the select shows the new group at once, and goes back if the API refuses.
  const move = useMutation({
    meta: { success: 'Phone moved' },
    mutationFn: ({ id, groupId }: { id: string; groupId: number }) =>
      api(`/api/v1/phones/${id}`, { method: 'PATCH', body: { group_id: groupId } }),
    onMutate: async ({ id, groupId }) => {
      const key = queryKeys.phones.list();
      await queryClient.cancelQueries({ queryKey: key });
      const before = queryClient.getQueryData<InfiniteData<Page<Phone>>>(key);
      queryClient.setQueryData<InfiniteData<Page<Phone>>>(key, (data) =>
        data
          ? {
              ...data,
              pages: data.pages.map((page) => ({
                ...page,
                data: page.data.map((p) => (p.id === id ? { ...p, group_id: groupId } : p)),
              })),
            }
          : data,
      );
      return { before };
    },
    onError: (_error, _vars, context) => queryClient.setQueryData(queryKeys.phones.list(), context?.before),
    onSettled: refresh,
  });
  const problem = create.error instanceof ApiProblem ? create.error : undefined;
  // A number the account already has is a problem of the number field.
  const phoneError =
    problem?.fieldError('phone') ?? (problem?.code === 'DUPLICATE_PHONE' ? problem.message : undefined);
  const groupName = (id: number) => groups.data?.find((g) => g.id === id)?.name ?? `#${id}`;

  return (
    <Section title="Phones">
      <form
        className="mb-6 grid grid-cols-1 items-end gap-3 sm:grid-cols-3"
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
      >
        <Field
          id="phone-number"
          label="Number (E.164)"
          placeholder="+14155550100"
          required
          value={form.phone}
          onChange={(e) => setForm({ ...form, phone: e.target.value })}
          error={phoneError}
        />
        <Field
          id="phone-label"
          label="Label"
          maxLength={100}
          value={form.label}
          onChange={(e) => setForm({ ...form, label: e.target.value })}
        />
        <Button type="submit" disabled={create.isPending}>
          {create.isPending ? 'Adding…' : 'Add phone'}
        </Button>
      </form>
      {problem && !phoneError && <ErrorState error={problem} />}
      {move.error && <ErrorState error={move.error} />}
      <ListView
        list={phones}
        empty={
          <EmptyState title="No phones yet">Activate a phone with the Simgate app, or add a number above.</EmptyState>
        }
      >
        {(items) => (
          <Table columns={['Number', 'Status', 'Battery', 'Last heartbeat', 'Group', '']}>
            {items.map((phone) => (
              <tr key={phone.id} className="border-t border-slate-100">
                <td className="py-2">
                  <Link
                    href={`/dashboard/phones/${phone.id}`}
                    className="font-medium text-slate-900 underline decoration-slate-400 underline-offset-2 hover:decoration-slate-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-slate-900"
                  >
                    {phone.phone}
                  </Link>
                  {phone.label && <span className="block text-xs text-slate-500">{phone.label}</span>}
                </td>
                <td>
                  <StatusBadge status={phone.status} />
                  {!phone.device_connected && <span className="block text-xs text-slate-500">no device</span>}
                  {phone.sim_verification === 'pending' && (
                    <span className="mt-1 block">
                      <SimBadge verification="pending" />
                    </span>
                  )}
                  {phone.near_cap && (
                    <span className="mt-1 block">
                      <NearCapBadge />
                    </span>
                  )}
                </td>
                <td>
                  <BatteryGauge level={phone.battery} label={`Battery of ${phone.phone}`} />
                </td>
                <td>
                  <RelativeTime value={phone.last_heartbeat_at} empty="never" />
                </td>
                <td>
                  <label className="sr-only" htmlFor={`group-of-${phone.id}`}>
                    Group of {phone.phone}
                  </label>
                  <select
                    id={`group-of-${phone.id}`}
                    className="rounded-md border border-slate-300 px-2 py-1"
                    value={phone.group_id}
                    onChange={(e) => move.mutate({ id: phone.id, groupId: Number(e.target.value) })}
                  >
                    {(groups.data ?? []).map((g) => (
                      <option key={g.id} value={g.id}>
                        {g.name}
                      </option>
                    ))}
                    {!groups.data && <option value={phone.group_id}>{groupName(phone.group_id)}</option>}
                  </select>
                </td>
                <td className="text-right">
                  <Button variant="secondary" onClick={() => setDeleting(phone)} aria-label={`Remove ${phone.phone}`}>
                    Remove
                  </Button>
                </td>
              </tr>
            ))}
          </Table>
        )}
      </ListView>
      <RemovePhoneDialog phone={deleting} onClose={() => setDeleting(null)} />
    </Section>
  );
}
