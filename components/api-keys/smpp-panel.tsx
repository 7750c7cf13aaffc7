'use client';

import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { queryKeys } from '@/components/query-keys';
import type { CreatedSmppCredential, SmppCredential } from '@/components/wire';
import { api } from '../api';
import { Button } from '../ui/button';
import { ConfirmDialog } from '../ui/confirm';
import { ListView, Table } from '../ui/list-view';
import { SecretOnce } from '../ui/secret-once';
import { formatTime, Section } from '../ui/section';
import { EmptyState, ErrorState } from '../ui/states';
import { usePagedList } from '../use-paged-list';
import { useRefresh } from '../use-refresh';

/**
 * SMPP logins: a system_id and a password shown once, for SMPP clients such as Kannel (docs/smpp.md).
 * `mayChange`: whether the signed-in role may change the integrations (no create or revoke otherwise).
 */
export function SmppPanel({ mayChange }: { mayChange: boolean }) {
  const refresh = useRefresh();
  const logins = usePagedList<SmppCredential>(queryKeys.smpp.list(), '/api/v1/smpp/credentials');
  const [created, setCreated] = useState<CreatedSmppCredential | null>(null);
  const [revoking, setRevoking] = useState<SmppCredential | null>(null);
  const create = useMutation({
    meta: { success: 'SMPP login created' },
    mutationFn: () => api<CreatedSmppCredential>('/api/v1/smpp/credentials', { body: {} }),
    onSuccess: (answer) => {
      setCreated(answer);
      return refresh('smpp');
    },
  });
  const revoke = useMutation({
    meta: { success: 'SMPP login revoked' },
    mutationFn: (systemId: string) => api(`/api/v1/smpp/credentials/${systemId}`, { method: 'DELETE' }),
    onSuccess: () => {
      setRevoking(null);
      return refresh('smpp');
    },
  });
  return (
    <Section title="SMPP">
      <p className="mb-4 text-sm text-slate-600">
        SMPP 3.4 clients (Kannel, Jasmin, an aggregator’s route) bind to this server’s SMPP port with a login below to
        send through your phones and receive delivery receipts and inbound messages.
      </p>
      {created ? (
        <SecretOnce
          label={`Password of ${created.system_id}`}
          value={created.password}
          onDone={() => setCreated(null)}
        />
      ) : (
        mayChange && (
          <Button variant="secondary" onClick={() => create.mutate()} disabled={create.isPending}>
            Create an SMPP login
          </Button>
        )
      )}
      {create.error && <ErrorState error={create.error} />}
      <ListView
        list={logins}
        empty={<EmptyState title="No SMPP logins yet">Create one to bind an SMPP client.</EmptyState>}
      >
        {(items) => (
          <Table columns={['system_id', 'Created', 'Last bound', '']}>
            {items.map((login) => (
              <tr key={login.system_id} className="border-t border-slate-100">
                <td className="py-2">
                  <code>{login.system_id}</code>
                  {login.locked_until && (
                    <span className="ml-2 text-xs text-slate-500">Locked until {formatTime(login.locked_until)}</span>
                  )}
                </td>
                <td>{formatTime(login.created_at)}</td>
                <td>{formatTime(login.last_bound_at)}</td>
                <td className="text-right">
                  {mayChange && (
                    <Button
                      variant="secondary"
                      onClick={() => setRevoking(login)}
                      aria-label={`Revoke ${login.system_id}`}
                    >
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
        title={`Revoke “${revoking?.system_id ?? ''}”?`}
        confirmLabel="Revoke login"
        pending={revoke.isPending}
        onConfirm={() => revoking && revoke.mutate(revoking.system_id)}
        onCancel={() => setRevoking(null)}
      >
        Its binds are closed at once, and it cannot bind again. This cannot be undone.
        {revoke.error && <ErrorState error={revoke.error} />}
      </ConfirmDialog>
    </Section>
  );
}
