'use client';

import { type InfiniteData, useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { queryKeys } from '@/components/query-keys';
import type { ApiKey, CreatedApiKey } from '@/components/wire';
import { MEMBER_ROLES, type MemberRole } from '@/lib/members/role-names';
import { may, ranksAtLeast } from '@/lib/members/roles';
import { ApiProblem, api, type Page } from '../api';
import { Button } from '../ui/button';
import { ConfirmDialog } from '../ui/confirm';
import { ListView, Table } from '../ui/list-view';
import { NameForm } from '../ui/name-form';
import { SecretOnce } from '../ui/secret-once';
import { formatTime, Section } from '../ui/section';
import { EmptyState, ErrorState } from '../ui/states';
import { usePagedList } from '../use-paged-list';
import { useRefresh } from '../use-refresh';

/**
 * Settings → API keys. `role`: the signed-in member's (null for a key's session without one). A role
 * that may not change keys gets no form; one that may is offered the roles at or below its own, as
 * lib/auth/api-keys.ts allows, and told what a key without a role gets.
 */
export function ApiKeysPanel({ role: own }: { role: MemberRole | null }) {
  const mayCreate = own === null || may(own, 'api_keys', 'write');
  const grantable = own === null ? MEMBER_ROLES : MEMBER_ROLES.filter((value) => ranksAtLeast(own, value));
  const byDefault = own === null || own === 'owner' || own === 'admin' ? 'everything' : own;
  const refresh = useRefresh();
  const keys = usePagedList<ApiKey>(queryKeys.apiKeys.list(), '/api/v1/auth/api-keys');
  const [created, setCreated] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [role, setRole] = useState<MemberRole | ''>('');
  const roleId = useId();

  const queryClient = useQueryClient();
  const create = useMutation({
    meta: { success: 'API key created' },
    mutationFn: (keyName: string) =>
      api<CreatedApiKey>('/api/v1/auth/api-keys', { body: { name: keyName, ...(role ? { role } : {}) } }),
    onSuccess: ({ key, ...created }) => {
      setCreated(key);
      const listed: ApiKey = { ...created, last_used_at: null, revoked_at: null, created_by: null };
      // The answer is the new row: listed at once, whatever the refetch's timing.
      queryClient.setQueryData<InfiniteData<Page<ApiKey>>>(queryKeys.apiKeys.list(), (data) =>
        data
          ? {
              ...data,
              pages: data.pages.map((page, index) =>
                index === 0 && !page.data.some((k) => k.id === listed.id)
                  ? { ...page, data: [listed, ...page.data] }
                  : page,
              ),
            }
          : data,
      );
      return refresh('apiKeys');
    },
  });
  const revoke = useMutation({
    meta: { success: 'API key revoked' },
    mutationFn: (id: string) => api(`/api/v1/auth/api-keys/${id}`, { method: 'DELETE' }),
    onSuccess: () => {
      setRevoking(null);
      return refresh('apiKeys');
    },
  });
  const nameError = create.error instanceof ApiProblem ? create.error.fieldError('name') : undefined;

  return (
    <Section title="API keys">
      {mayCreate && (
        <>
          <div className="mb-3 flex flex-wrap items-center gap-2 text-sm">
            <label htmlFor={roleId}>Role of the new key</label>
            <select
              id={roleId}
              className="rounded-md border border-slate-300 px-2 py-1"
              value={role}
              onChange={(event) => setRole(event.target.value as MemberRole | '')}
            >
              <option value="">default ({byDefault})</option>
              {grantable.map((value) => (
                <option key={value} value={value}>
                  {value}
                </option>
              ))}
            </select>
          </div>
          <NameForm
            id="api-key-name"
            label="New key name"
            submitLabel="Create key"
            pending={create.isPending}
            error={nameError}
            onSubmit={(name) => create.mutateAsync(name)}
          />
          {create.error && !nameError && <ErrorState error={create.error} />}
        </>
      )}
      {created && <SecretOnce label="Your new API key" value={created} onDone={() => setCreated(null)} />}

      <ListView
        list={keys}
        empty={<EmptyState title="No API keys yet">Create one to call the API from your systems.</EmptyState>}
      >
        {(items) => (
          <Table columns={['Name', 'Key', 'Role', 'Created by', 'Created', 'Last used', '']}>
            {items.map((key) => (
              <tr key={key.id} className="border-t border-slate-100">
                <td className="py-2 font-medium">{key.name}</td>
                <td>
                  <code>{key.prefix}…</code>
                </td>
                <td>{key.role ?? 'everything'}</td>
                <td className="break-all">{key.created_by ?? '—'}</td>
                <td>{formatTime(key.created_at)}</td>
                <td>{formatTime(key.last_used_at)}</td>
                <td className="text-right">
                  {key.revoked_at ? (
                    <span className="text-xs text-slate-500">Revoked {formatTime(key.revoked_at)}</span>
                  ) : (
                    <Button variant="secondary" onClick={() => setRevoking(key)} aria-label={`Revoke ${key.name}`}>
                      Revoke
                    </Button>
                  )}
                </td>
              </tr>
            ))}
          </Table>
        )}
      </ListView>
      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke “${revoking?.name ?? ''}”?`}
        confirmLabel="Revoke key"
        pending={revoke.isPending}
        onConfirm={() => revoking && revoke.mutate(revoking.id)}
        onCancel={() => setRevoking(null)}
      >
        Requests with this key fail at once. This cannot be undone.
        {revoke.error && <ErrorState error={revoke.error} />}
      </ConfirmDialog>
    </Section>
  );
}
