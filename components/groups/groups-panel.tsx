'use client';

import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { queryKeys } from '@/components/query-keys';
import type { Group } from '@/components/wire';
import { ApiProblem, api } from '../api';
import { Button } from '../ui/button';
import { ConfirmDialog } from '../ui/confirm';
import { ListView, Table } from '../ui/list-view';
import { NameForm } from '../ui/name-form';
import { Section } from '../ui/section';
import { EmptyState, ErrorState } from '../ui/states';
import { usePagedList } from '../use-paged-list';
import { useRefresh } from '../use-refresh';

export function GroupsPanel() {
  const groups = usePagedList<Group>(queryKeys.groups.list(), '/api/v1/phone-groups?limit=100');
  const [deleting, setDeleting] = useState<Group | null>(null);
  const refreshAll = useRefresh();
  const refresh = () => refreshAll('groups', 'balance', 'phones', 'ledger');

  const create = useMutation({
    meta: { success: 'Group created' },
    mutationFn: (groupName: string) => api('/api/v1/phone-groups', { body: { name: groupName } }),
    onSuccess: () => {
      return refresh();
    },
  });
  const remove = useMutation({
    meta: { success: 'Group deleted' },
    mutationFn: (id: number) => api(`/api/v1/phone-groups/${id}`, { method: 'DELETE' }),
    onSuccess: () => {
      setDeleting(null);
      return refresh();
    },
  });
  const nameError =
    create.error instanceof ApiProblem ? (create.error.fieldError('name') ?? create.error.message) : undefined;

  return (
    <Section title="Phone groups">
      <NameForm
        id="group-name"
        label="New group name"
        submitLabel="Create group"
        pending={create.isPending}
        error={nameError}
        onSubmit={(name) => create.mutateAsync(name)}
      />
      <ListView list={groups} empty={<EmptyState title="No groups" />}>
        {(items) => (
          <Table columns={['Name', 'Phones', 'Credits', 'MessagingServiceSid (Twilio)', '']}>
            {items.map((group) => (
              <tr key={group.id} className="border-t border-slate-100">
                <td className="py-2 font-medium">
                  {group.name}{' '}
                  {group.is_default && (
                    <span
                      className="ml-1 inline-flex items-center gap-1 rounded bg-slate-100 px-1.5 py-0.5 text-xs font-medium text-slate-700"
                      title="The default group cannot be deleted"
                    >
                      <span aria-hidden="true">🔒</span> default
                      <span className="sr-only">, cannot be deleted</span>
                    </span>
                  )}
                </td>
                <td>{group.phone_count}</td>
                <td>{group.balance}</td>
                <td className="break-all font-mono text-xs text-slate-600">{group.messaging_service_sid}</td>
                <td className="text-right">
                  {!group.is_default && (
                    <Button variant="secondary" onClick={() => setDeleting(group)} aria-label={`Delete ${group.name}`}>
                      Delete
                    </Button>
                  )}
                </td>
              </tr>
            ))}
          </Table>
        )}
      </ListView>
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete “${deleting?.name ?? ''}”?`}
        confirmLabel="Delete group"
        pending={remove.isPending}
        onConfirm={() => deleting && remove.mutate(deleting.id)}
        onCancel={() => setDeleting(null)}
      >
        Its {deleting?.phone_count ?? 0} phone(s) and {deleting?.balance ?? 0} credit(s) move to the default group.
        {remove.error && <ErrorState error={remove.error} />}
      </ConfirmDialog>
    </Section>
  );
}
