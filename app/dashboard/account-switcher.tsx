'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiProblem, api } from '@/components/api';
import { queryKeys } from '@/components/query-keys';
import type { Membership } from '@/components/wire';

/**
 * The accounts the signed-in person belongs to, in the header: choosing one re-issues the session for it
 * and reloads the dashboard on that account. Shown only to someone in more than one account. A
 * membership with two-factor sign-in on asks for a code of its authenticator first.
 */
export function AccountSwitcher() {
  const memberships = useQuery({
    queryKey: queryKeys.memberships.root,
    queryFn: () => api<{ data: Membership[] }>('/api/v1/auth/memberships'),
  });
  const [pending, setPending] = useState<string | null>(null);
  const [code, setCode] = useState('');
  const switchTo = useMutation({
    mutationFn: ({ accountId, totp }: { accountId: string; totp?: string }) =>
      api<Membership>('/api/v1/auth/memberships/switch', {
        body: totp ? { account_id: accountId, totp } : { account_id: accountId },
      }),
    // A full load: every query and the server-rendered header are of the other account now.
    onSuccess: () => window.location.assign('/dashboard'),
    onError: (error, { accountId }) => {
      if (error instanceof ApiProblem && error.body.second_factor_required === true) setPending(accountId);
    },
  });
  const data = memberships.data?.data ?? [];
  const current = data.find((membership) => membership.current);
  if (data.length < 2 || !current) return null;
  const asked = pending ? data.find((membership) => membership.account_id === pending) : undefined;
  return (
    <div className="flex flex-wrap items-end gap-2">
      <label className="flex flex-col gap-1 text-sm font-medium text-slate-800" htmlFor="account-switcher">
        Account
        <select
          id="account-switcher"
          className="max-w-[16rem] rounded-md border border-slate-300 px-2 py-1.5 font-normal"
          value={asked?.account_id ?? current.account_id}
          disabled={switchTo.isPending}
          aria-busy={switchTo.isPending}
          onChange={(event) => {
            setPending(null);
            setCode('');
            switchTo.mutate({ accountId: event.target.value });
          }}
        >
          {data.map((membership) => (
            <option key={membership.account_id} value={membership.account_id}>
              {membership.account_email} · {membership.role}
            </option>
          ))}
        </select>
      </label>
      {asked && (
        <form
          className="flex items-end gap-2"
          onSubmit={(event) => {
            event.preventDefault();
            switchTo.mutate({ accountId: asked.account_id, totp: code.trim() });
          }}
        >
          <label className="flex flex-col gap-1 text-sm font-medium text-slate-800" htmlFor="account-switcher-code">
            Authenticator code
            <input
              id="account-switcher-code"
              className="w-32 rounded-md border border-slate-300 px-2 py-1.5 font-normal"
              inputMode="numeric"
              autoComplete="one-time-code"
              required
              value={code}
              aria-describedby="account-switcher-error"
              onChange={(event) => setCode(event.target.value)}
            />
          </label>
          <button
            type="submit"
            className="rounded-md bg-slate-900 px-3 py-1.5 text-sm font-medium text-white disabled:opacity-50"
            disabled={switchTo.isPending || code.trim() === ''}
          >
            Switch
          </button>
        </form>
      )}
      {switchTo.error && (
        <p id="account-switcher-error" role="alert" className="w-full text-xs text-red-700">
          {switchTo.error.message}
        </p>
      )}
    </div>
  );
}
