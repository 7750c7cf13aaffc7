'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import type { SendingSettings } from '@/lib/settings/schemas';
import { ApiProblem, api } from '../api';
import { useGroups, usePhones } from '../lists';
import { queryKeys } from '../query-keys';
import { Button } from '../ui/button';
import { Section } from '../ui/section';
import { ErrorState, Loading } from '../ui/states';
import { useRefresh } from '../use-refresh';

type Group = { id: number; name: string; is_default: boolean; sending: Partial<SendingSettings> };
type Field = keyof SendingSettings;
type Window = NonNullable<SendingSettings['send_window']>;

const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
const DEFAULT_WINDOW: Window = {
  time_zone: typeof Intl === 'undefined' ? 'UTC' : Intl.DateTimeFormat().resolvedOptions().timeZone,
  days: ['mon', 'tue', 'wed', 'thu', 'fri'],
  start: '08:00',
  end: '21:00',
};

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
  const refresh = useRefresh();
  const initial = { ...account, ...(group?.sending ?? {}) } as SendingSettings;
  const [inherit, setInherit] = useState<Record<Field, boolean>>({
    send_window: group ? !('send_window' in group.sending) : false,
    max_attempts: group ? !('max_attempts' in group.sending) : false,
    allowed_countries: group ? !('allowed_countries' in group.sending) : false,
  });
  const [windowOn, setWindowOn] = useState(initial.send_window !== null);
  const [window, setWindow] = useState<Window>(initial.send_window ?? DEFAULT_WINDOW);
  const [attempts, setAttempts] = useState(initial.max_attempts);
  const [countriesOn, setCountriesOn] = useState(initial.allowed_countries !== null);
  const [countries, setCountries] = useState((initial.allowed_countries ?? []).join(', '));
  const phones = usePhones();

  const save = useMutation({
    mutationFn: () => {
      const values = {
        send_window: windowOn ? window : null,
        max_attempts: attempts,
        allowed_countries: countriesOn
          ? countries
              .split(/[\s,]+/)
              .map((code) => code.trim())
              .filter(Boolean)
          : null,
      };
      if (!group) return api('/api/v1/settings/sending', { method: 'PATCH', body: values });
      const sending = Object.fromEntries(
        (Object.keys(values) as Field[]).map((key) => [key, inherit[key] ? 'inherit' : values[key]]),
      );
      return api(`/api/v1/phone-groups/${group.id}`, { method: 'PATCH', body: { sending } });
    },
    onSuccess: () => refresh('sendingSettings', 'groups'),
  });
  const problem = save.error instanceof ApiProblem ? save.error : undefined;
  const fieldError = (prefix: string) =>
    problem?.errors.find((error) => error.path.replace(/^sending\./, '').startsWith(prefix))?.message;

  // libphonenumber's metadata is loaded only when asked for: it would put the page over its 200 kB budget.
  const myCountries = async () => {
    const { parsePhoneNumberFromString } = await import('libphonenumber-js/min');
    const found = new Set<string>();
    for (const phone of phones.data ?? []) {
      const country = parsePhoneNumberFromString(phone.phone)?.country;
      if (country) found.add(country);
    }
    setCountriesOn(true);
    setCountries([...found].sort().join(', '));
  };

  const inheritBox = (field: Field) =>
    group && (
      <label className="flex items-center gap-2 text-sm font-normal">
        <input
          type="checkbox"
          checked={inherit[field]}
          onChange={(event) => setInherit({ ...inherit, [field]: event.target.checked })}
        />
        Use the account’s setting
      </label>
    );

  return (
    <form
      className="flex flex-col gap-6"
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate();
      }}
    >
      <fieldset className="flex flex-col gap-2" disabled={group && inherit.send_window}>
        <legend className="text-sm font-semibold text-slate-800">Send window (quiet hours)</legend>
        {inheritBox('send_window')}
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" checked={windowOn} onChange={(event) => setWindowOn(event.target.checked)} />
          Hand normal-priority messages to phones only inside these hours (high priority ignores them)
        </label>
        {windowOn && (
          <div className="flex flex-col gap-2 text-sm">
            <label className="flex flex-col gap-1" htmlFor={`${ids}-tz`}>
              Time zone (IANA name)
              <input
                id={`${ids}-tz`}
                className="rounded-md border border-slate-300 px-3 py-1.5"
                value={window.time_zone}
                onChange={(event) => setWindow({ ...window, time_zone: event.target.value })}
                aria-invalid={fieldError('send_window.time_zone') ? true : undefined}
              />
            </label>
            <fieldset className="flex flex-wrap gap-3">
              <legend className="sr-only">Days</legend>
              {DAYS.map((day) => (
                <label key={day} className="flex items-center gap-1">
                  <input
                    type="checkbox"
                    checked={window.days.includes(day)}
                    onChange={(event) =>
                      setWindow({
                        ...window,
                        days: event.target.checked
                          ? DAYS.filter((d) => d === day || window.days.includes(d))
                          : window.days.filter((d) => d !== day),
                      })
                    }
                  />
                  {day}
                </label>
              ))}
            </fieldset>
            <div className="flex flex-wrap gap-3">
              <label className="flex items-center gap-2" htmlFor={`${ids}-start`}>
                From
                <input
                  id={`${ids}-start`}
                  type="time"
                  className="rounded-md border border-slate-300 px-2 py-1"
                  value={window.start}
                  onChange={(event) => setWindow({ ...window, start: event.target.value })}
                />
              </label>
              <label className="flex items-center gap-2" htmlFor={`${ids}-end`}>
                until
                <input
                  id={`${ids}-end`}
                  type="time"
                  className="rounded-md border border-slate-300 px-2 py-1"
                  value={window.end === '24:00' ? '23:59' : window.end}
                  onChange={(event) => setWindow({ ...window, end: event.target.value })}
                />
              </label>
            </div>
            {fieldError('send_window') && <p className="text-xs text-red-700">{fieldError('send_window')}</p>}
            <p className="text-xs text-slate-500">A message’s time to live still counts from its send time.</p>
          </div>
        )}
      </fieldset>

      <fieldset className="flex flex-col gap-2" disabled={group && inherit.max_attempts}>
        <legend className="text-sm font-semibold text-slate-800">Automatic retry</legend>
        {inheritBox('max_attempts')}
        <label className="flex items-center gap-2 text-sm" htmlFor={`${ids}-attempts`}>
          Tries per message when a failure may be fixed by retrying (no signal, radio off…)
          <input
            id={`${ids}-attempts`}
            type="number"
            min={1}
            max={5}
            className="w-16 rounded-md border border-slate-300 px-2 py-1"
            value={attempts}
            onChange={(event) => setAttempts(Number(event.target.value))}
          />
        </label>
        {fieldError('max_attempts') && <p className="text-xs text-red-700">{fieldError('max_attempts')}</p>}
      </fieldset>

      <fieldset className="flex flex-col gap-2" disabled={group && inherit.allowed_countries}>
        <legend className="text-sm font-semibold text-slate-800">Destination countries</legend>
        {inheritBox('allowed_countries')}
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" checked={countriesOn} onChange={(event) => setCountriesOn(event.target.checked)} />
          Send only to these countries (a leaked key cannot text premium numbers abroad)
        </label>
        {countriesOn && (
          <div className="flex flex-col gap-2 text-sm">
            <label className="flex flex-col gap-1" htmlFor={`${ids}-countries`}>
              Country codes (ISO 3166-1, e.g. US, CA)
              <input
                id={`${ids}-countries`}
                className="rounded-md border border-slate-300 px-3 py-1.5"
                value={countries}
                onChange={(event) => setCountries(event.target.value)}
                aria-invalid={fieldError('allowed_countries') ? true : undefined}
              />
            </label>
            {fieldError('allowed_countries') && (
              <p className="text-xs text-red-700">{fieldError('allowed_countries')}</p>
            )}
          </div>
        )}
        <div>
          <Button type="button" variant="secondary" onClick={myCountries} disabled={!phones.data}>
            Only my phones’ countries
          </Button>
        </div>
      </fieldset>

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
