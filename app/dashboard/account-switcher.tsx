'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import { api } from '@/components/api';
import { queryKeys } from '@/components/query-keys';
import type { Membership } from '@/components/wire';

/**
 * The accounts the signed-in person belongs to, in the header: choosing one re-issues the session for it
 * and reloads the dashboard on that account. Shown only to someone in more than one account.
 */
export function AccountSwitcher() {
  const memberships = useQuery({
    queryKey: queryKeys.memberships.root,
    queryFn: () => api<{ data: Membership[] }>('/api/v1/auth/memberships'),
  });
  const switchTo = useMutation({
    mutationFn: (accountId: string) =>
      api<Membership>('/api/v1/auth/memberships/switch', { body: { account_id: accountId } }),
    // A full load: every query and the server-rendered header are of the other account now.
    onSuccess: () => window.location.assign('/dashboard'),
  });
  const data = memberships.data?.data ?? [];
  const current = data.find((membership) => membership.current);
  if (data.length < 2 || !current) return null;
  return (
    <label className="flex flex-col gap-1 text-sm font-medium text-slate-800" htmlFor="account-switcher">
      Account
      <select
        id="account-switcher"
        className="max-w-[16rem] rounded-md border border-slate-300 px-2 py-1.5 font-normal"
        value={current.account_id}
        disabled={switchTo.isPending}
        aria-busy={switchTo.isPending}
        onChange={(event) => switchTo.mutate(event.target.value)}
      >
        {data.map((membership) => (
          <option key={membership.account_id} value={membership.account_id}>
            {membership.account_email} · {membership.role}
          </option>
        ))}
      </select>
    </label>
  );
}
