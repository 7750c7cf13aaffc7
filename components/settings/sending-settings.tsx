'use client';

import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import type { SendingSettings } from '@/lib/settings/schemas';
import { api } from '../api';
import { useGroups } from '../lists';
import { queryKeys } from '../query-keys';
import { Button } from '../ui/button';
import { Section } from '../ui/section';
import { ErrorState, Loading } from '../ui/states';
import { AccountSendingFieldset, CountriesFieldset, RetryFieldset, SendWindowFieldset } from './sending-fieldsets';
import { type Group, useSendingForm } from './use-sending-form';

/** Settings → Sending: the account's quiet hours, retries and allowed countries, and each group's overrides. */
export function SendingSettingsPanel() {
  const account = useQuery({
    queryKey: queryKeys.sendingSettings.root,
    queryFn: () => api<SendingSettings>('/api/v1/settings/sending'),
  });
  const groups = useGroups();
  const [scope, setScope] = useState<'account' | number>('account');
  const scopeId = useId();
  if (account.isPending || groups.isPending) return <Loading />;
  if (account.error || groups.error) {
    return (
      <ErrorState
        error={account.error ?? groups.error}
        onRetry={() => Promise.all([account.refetch(), groups.refetch()])}
      />
    );
  }
  const others = groups.data.filter((group) => !group.is_default);
  const group = scope === 'account' ? undefined : others.find((candidate) => candidate.id === scope);
  return (
    <Section title="Sending">
      <p className="mb-4 text-sm text-slate-600">
        These apply to every phone and send of the account; a group other than the default one may override each.
      </p>
      <label className="mb-4 flex flex-col gap-1 text-sm font-medium text-slate-800" htmlFor={scopeId}>
        Settings for
        <select
          id={scopeId}
          className="rounded-md border border-slate-300 px-2 py-1.5 font-normal"
          value={String(scope)}
          onChange={(event) => setScope(event.target.value === 'account' ? 'account' : Number(event.target.value))}
        >
          <option value="account">The account (and its default group)</option>
          {others.map((candidate) => (
            <option key={candidate.id} value={candidate.id}>
              Group: {candidate.name}
            </option>
          ))}
        </select>
      </label>
      <SettingsForm key={String(scope)} account={account.data} group={group} />
    </Section>
  );
}

function SettingsForm({ account, group }: { account: SendingSettings; group?: Group }) {
  const ids = useId();
  const form = useSendingForm(account, group);
  const { save, problem } = form;
  return (
    <form
      className="flex flex-col gap-6"
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate();
      }}
    >
      <SendWindowFieldset ids={ids} form={form} />

      <RetryFieldset ids={ids} form={form} />

      <CountriesFieldset ids={ids} form={form} />

      {!group && <AccountSendingFieldset ids={ids} form={form} />}

      <div className="flex items-center gap-3">
        <Button type="submit" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save'}
        </Button>
        {save.isSuccess && <output className="text-sm text-green-800">Saved.</output>}
        {problem && problem.errors.length === 0 && <ErrorState error={problem} />}
      </div>
    </form>
  );
}
