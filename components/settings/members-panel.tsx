'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { queryKeys } from '@/components/query-keys';
import type { Member, MemberList } from '@/components/wire';
import { MEMBER_ROLES, type MemberRole } from '@/lib/members/role-names';
import { AREA_LABELS, AREAS, ROLE_ACCESS } from '@/lib/members/roles';
import { api } from '../api';
import { Button } from '../ui/button';
import { ConfirmDialog } from '../ui/confirm';
import { Table } from '../ui/list-view';
import { formatTime, Section } from '../ui/section';
import { ErrorState, Loading } from '../ui/states';
import { useRefresh } from '../use-refresh';

/** The members' list, which every role may read; `you` says who is looking. */
export function useMembers() {
  return useQuery({ queryKey: queryKeys.members.list(), queryFn: () => api<MemberList>('/api/v1/members') });
}

/** Whether the caller may change members: an owner, an admin, or an API key without a role. */
function managesMembers(you: MemberList['you']): boolean {
  return you.role === null || you.role === 'owner' || you.role === 'admin';
}

/** Settings → Members: who belongs to the account and with which role; owners and admins change them. */
export function MembersPanel() {
  const members = useMembers();
  const refresh = useRefresh();
  const [removing, setRemoving] = useState<Member | null>(null);
  const change = useMutation({
    meta: { success: 'Role changed' },
    mutationFn: ({ id, role }: { id: string; role: MemberRole }) =>
      api<Member>(`/api/v1/members/${id}`, { method: 'PATCH', body: { role } }),
    onSuccess: () => refresh('members', 'auditLog'),
  });
  const remove = useMutation({
    meta: { success: 'Member removed' },
    mutationFn: (id: string) => api(`/api/v1/members/${id}`, { method: 'DELETE' }),
    onSuccess: async (_answer, id) => {
      setRemoving(null);
      // Leaving ends this browser's session: the sign-in page is next.
      if (id === members.data?.you.member_id) {
        window.location.assign('/sign-in');
        return;
      }
      await refresh('members', 'auditLog');
    },
  });

  if (members.isPending) return <Loading label="Loading the members…" />;
  if (members.error) return <ErrorState error={members.error} onRetry={() => members.refetch()} />;
  const { data, you } = members.data;
  const manages = managesMembers(you);
  const isOwner = you.role === null || you.role === 'owner';
  const leaving = removing?.id === you.member_id;

  return (
    <Section title="Members">
      <p className="mb-4 text-sm text-slate-700" data-testid="your-role">
        {you.role ? (
          <>
            Your role: <strong>{you.role}</strong>
          </>
        ) : (
          'This session’s API key has no role: it may do everything.'
        )}
      </p>
      {change.error && <ErrorState error={change.error} />}
      <Table columns={['Email', 'Role', 'Joined', '']}>
        {data.map((member) => {
          const self = member.id === you.member_id;
          // Only an owner grants or takes away the owner role.
          const editable = manages && (isOwner || member.role !== 'owner');
          return (
            <tr key={member.id} className="border-t border-slate-100">
              <td className="break-all py-2 font-medium">
                {member.email}
                {self && <span className="ml-2 text-xs font-normal text-slate-500">(you)</span>}
              </td>
              <td className="py-2">
                {editable ? (
                  <select
                    aria-label={`Role of ${member.email}`}
                    className="rounded-md border border-slate-300 px-2 py-1"
                    value={member.role}
                    disabled={change.isPending}
                    onChange={(event) => change.mutate({ id: member.id, role: event.target.value as MemberRole })}
                  >
                    {MEMBER_ROLES.filter((role) => isOwner || role !== 'owner').map((role) => (
                      <option key={role} value={role}>
                        {role}
                      </option>
                    ))}
                  </select>
                ) : (
                  member.role
                )}
              </td>
              <td className="py-2">{formatTime(member.joined_at)}</td>
              <td className="py-2 text-right">
                {(self || editable) && (
                  <Button
                    variant="secondary"
                    onClick={() => setRemoving(member)}
                    aria-label={self ? 'Leave the account' : `Remove ${member.email}`}
                  >
                    {self ? 'Leave' : 'Remove'}
                  </Button>
                )}
              </td>
            </tr>
          );
        })}
      </Table>
      <ConfirmDialog
        open={removing !== null}
        title={leaving ? 'Leave this account?' : `Remove ${removing?.email ?? ''}?`}
        confirmLabel={leaving ? 'Leave' : 'Remove member'}
        pending={remove.isPending}
        onConfirm={() => removing && remove.mutate(removing.id)}
        onCancel={() => {
          setRemoving(null);
          remove.reset();
        }}
      >
        {leaving
          ? 'You are signed out at once and can no longer open this account.'
          : 'Their sessions end at once. API keys they created keep working until revoked.'}
        {remove.error && <ErrorState error={remove.error} />}
      </ConfirmDialog>
    </Section>
  );
}

const ACCESS_WORDS = { write: 'Change', read: 'Read' } as const;

/** What each role may do: lib/members/roles.ts's ROLE_ACCESS, the table the API enforces, as a matrix. */
export function RoleTable() {
  return (
    <Section title="What each role may do">
      <div>
        <table className="w-full text-left text-xs sm:text-sm">
          <caption className="sr-only">Access of each role to each area: change, read, or none</caption>
          <thead className="text-slate-500">
            <tr>
              <th scope="col" className="py-2">
                Area
              </th>
              {MEMBER_ROLES.map((role) => (
                <th key={role} scope="col" className="py-2 pr-1 capitalize">
                  {role}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {AREAS.map((area) => (
              <tr key={area} className="border-t border-slate-100">
                <th scope="row" className="py-2 pr-2 font-medium break-words">
                  {AREA_LABELS[area]}
                </th>
                {MEMBER_ROLES.map((role) => {
                  const access = ROLE_ACCESS[role][area];
                  return (
                    <td key={role} className={`py-2 pr-1 ${access ? '' : 'text-slate-500'}`}>
                      {access ? ACCESS_WORDS[access] : '—'}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Section>
  );
}
