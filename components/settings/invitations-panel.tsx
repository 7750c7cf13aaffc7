'use client';

import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { queryKeys } from '@/components/query-keys';
import type { Invitation } from '@/components/wire';
import { MEMBER_ROLES, type MemberRole } from '@/lib/members/role-names';
import { ApiProblem, api } from '../api';
import { Button } from '../ui/button';
import { ConfirmDialog } from '../ui/confirm';
import { Field } from '../ui/field';
import { ListView, Table } from '../ui/list-view';
import { formatTime, Section } from '../ui/section';
import { EmptyState, ErrorState } from '../ui/states';
import { usePagedList } from '../use-paged-list';
import { useRefresh } from '../use-refresh';

const ROLE_HINTS: Record<MemberRole, string> = {
  owner: 'everything, including members and deleting the account',
  admin: 'everything but ownership',
  developer: 'API keys, webhooks, automation, sending settings and messages',
  operator: 'phones, groups, messages, opt-outs and contacts',
  viewer: 'reads only',
};

function InviteForm() {
  const refresh = useRefresh();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<MemberRole>('operator');
  const create = useMutation({
    meta: { success: 'Invitation sent' },
    mutationFn: () => api<Invitation>('/api/v1/members/invitations', { body: { email, role } }),
    onSuccess: () => {
      setEmail('');
      return refresh('invitations');
    },
  });
  const problem = create.error instanceof ApiProblem ? create.error : undefined;
  const emailError =
    problem?.fieldError('email') ?? (problem?.code === 'ALREADY_A_MEMBER' ? problem.message : undefined);

  function submit(event: FormEvent) {
    event.preventDefault();
    create.mutate();
  }

  return (
    <form onSubmit={submit} className="mb-6 grid gap-3 sm:grid-cols-[minmax(0,1fr)_12rem_auto] sm:items-end">
      <Field
        id="invite-email"
        label="Email to invite"
        type="email"
        autoComplete="off"
        required
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        error={emailError}
      />
      <div className="flex min-w-0 flex-col gap-1">
        <label className="text-sm font-medium text-slate-800" htmlFor="invite-role">
          Role
        </label>
        <select
          id="invite-role"
          aria-describedby="invite-role-hint"
          className="w-full min-w-0 rounded-md border border-slate-300 px-2 py-1.5 text-sm"
          value={role}
          onChange={(event) => setRole(event.target.value as MemberRole)}
        >
          {MEMBER_ROLES.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </div>
      <Button type="submit" disabled={create.isPending || !email}>
        {create.isPending ? 'Inviting…' : 'Invite'}
      </Button>
      <p id="invite-role-hint" className="text-xs text-slate-500 sm:col-span-3">
        The {role} role: {ROLE_HINTS[role]}.
      </p>
      {problem && !emailError && (
        <div className="sm:col-span-3">
          <ErrorState error={problem} />
        </div>
      )}
    </form>
  );
}

/**
 * Settings → Members: invite an email with a role (the link is emailed, valid 7 days) and revoke open
 * invitations. Inviting an email again sends a fresh link.
 */
export function InvitationsPanel() {
  const refresh = useRefresh();
  const invitations = usePagedList<Invitation>(queryKeys.invitations.list(), '/api/v1/members/invitations');
  const [revoking, setRevoking] = useState<Invitation | null>(null);
  const revoke = useMutation({
    meta: { success: 'Invitation revoked' },
    mutationFn: (id: string) => api(`/api/v1/members/invitations/${id}`, { method: 'DELETE' }),
    onSuccess: () => {
      setRevoking(null);
      return refresh('invitations');
    },
  });

  return (
    <Section title="Invitations">
      <p className="mb-4 text-sm text-slate-600">
        The person invited gets a link by email, valid 7 days, and joins by signing in with a code sent to that email.
      </p>
      <InviteForm />
      <ListView
        list={invitations}
        empty={<EmptyState title="No open invitations">Invite someone to share this account.</EmptyState>}
      >
        {(items) => (
          <Table columns={['Email', 'Role', 'Status', 'Expires', '']}>
            {items.map((invitation) => (
              <tr key={invitation.id} className="border-t border-slate-100">
                <td className="py-2 font-medium break-all">{invitation.email}</td>
                <td>{invitation.role}</td>
                <td>{invitation.status}</td>
                <td>{formatTime(invitation.expires_at)}</td>
                <td className="text-right">
                  <Button
                    variant="secondary"
                    onClick={() => setRevoking(invitation)}
                    aria-label={`Revoke the invitation of ${invitation.email}`}
                  >
                    Revoke
                  </Button>
                </td>
              </tr>
            ))}
          </Table>
        )}
      </ListView>
      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke the invitation of ${revoking?.email ?? ''}?`}
        confirmLabel="Revoke invitation"
        pending={revoke.isPending}
        onConfirm={() => revoking && revoke.mutate(revoking.id)}
        onCancel={() => setRevoking(null)}
      >
        The link stops working at once. You can invite the email again later.
        {revoke.error && <ErrorState error={revoke.error} />}
      </ConfirmDialog>
    </Section>
  );
}
