'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { ALERT_KINDS, ALERT_RULES, type AlertKind } from '@/lib/alerts/kinds';
import type { AlertSettings } from '@/lib/alerts/schemas';
import { ALERT_SETTING_TEXT } from '@/lib/alerts/text';
import { ApiProblem, api } from '../api';
import { queryKeys } from '../query-keys';
import { Button } from '../ui/button';
import { Section } from '../ui/section';
import { ErrorState, Loading } from '../ui/states';
import { useRefresh } from '../use-refresh';

type Threshold = { on: boolean; value: string };
type Form = Record<AlertKind, Threshold>;

function formOf(settings: AlertSettings): Form {
  return Object.fromEntries(
    ALERT_KINDS.map((kind) => {
      const value = settings[ALERT_RULES[kind].setting];
      const fallback = ALERT_RULES[kind].default ?? ALERT_RULES[kind].min * 100;
      return [kind, { on: value !== null, value: String(value ?? fallback) }];
    }),
  ) as Form;
}

/** Settings → Alerts: the account's thresholds, each of which may be turned off. */
export function AlertSettingsPanel() {
  const settings = useQuery({
    queryKey: queryKeys.alertSettings.root,
    queryFn: () => api<AlertSettings>('/api/v1/settings/alerts'),
  });
  return (
    <Section title="Alerts">
      <p className="mb-4 text-sm text-slate-600">
        An alert is emailed to your account’s address and sent to webhooks subscribed to <code>alert.raised</code> and{' '}
        <code>alert.resolved</code>: once when its condition starts, once when it ends. Open alerts show on the
        Overview.
      </p>
      {settings.isPending ? (
        <Loading label="Loading the alert settings…" rows={5} />
      ) : settings.isError ? (
        <ErrorState error={settings.error} onRetry={() => settings.refetch()} />
      ) : (
        <AlertSettingsForm settings={settings.data} />
      )}
    </Section>
  );
}

function AlertSettingsForm({ settings }: { settings: AlertSettings }) {
  const ids = useId();
  const refresh = useRefresh();
  const [form, setForm] = useState<Form>(() => formOf(settings));
  const save = useMutation({
    mutationFn: () =>
      api<AlertSettings>('/api/v1/settings/alerts', {
        method: 'PATCH',
        body: Object.fromEntries(
          ALERT_KINDS.map((kind) => {
            const { on, value } = form[kind];
            const number = Number(value);
            // What is not a number goes as typed, so that the API names the field.
            const sent = value.trim() !== '' && Number.isFinite(number) ? number : value;
            return [ALERT_RULES[kind].setting, on ? sent : null];
          }),
        ),
      }),
    onSuccess: () => refresh('alertSettings', 'alerts'),
    meta: { success: 'Alert settings saved' },
  });
  const problem = save.error instanceof ApiProblem ? save.error : undefined;
  const set = (kind: AlertKind, change: Partial<Threshold>) =>
    setForm((current) => ({ ...current, [kind]: { ...current[kind], ...change } }));

  return (
    <form
      className="flex flex-col gap-4"
      // The API's answer names the field and says the range: shown beside it.
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate();
      }}
    >
      <ul className="divide-y divide-slate-200">
        {ALERT_KINDS.map((kind) => {
          const rule = ALERT_RULES[kind];
          const text = ALERT_SETTING_TEXT[kind];
          const id = `${ids}-${kind}`;
          const error = problem?.fieldError(rule.setting);
          const { on, value } = form[kind];
          return (
            <li key={kind} className="flex flex-col gap-2 py-3 sm:flex-row sm:items-center sm:justify-between">
              <label className="flex items-center gap-2 text-sm font-medium text-slate-800">
                <input
                  type="checkbox"
                  checked={on}
                  onChange={(event) => set(kind, { on: event.target.checked })}
                  aria-describedby={`${id}-state`}
                />
                {text.label}…
              </label>
              <div className="flex flex-col gap-1 sm:items-end">
                <div className="flex items-center gap-2 text-sm">
                  <label htmlFor={id} className="sr-only">
                    {`${text.label} (${text.unit})`}
                  </label>
                  <input
                    id={id}
                    type="number"
                    inputMode="numeric"
                    min={rule.min}
                    max={rule.max}
                    step={1}
                    disabled={!on}
                    value={value}
                    onChange={(event) => set(kind, { value: event.target.value })}
                    aria-invalid={error ? true : undefined}
                    aria-describedby={error ? `${id}-error` : undefined}
                    className="w-28 rounded-md border border-slate-300 px-2 py-1 disabled:bg-slate-100 disabled:text-slate-500 aria-invalid:border-red-600"
                  />
                  <span className="text-slate-700">{text.unit}</span>
                  <span id={`${id}-state`} className="w-8 text-xs text-slate-600">
                    {on ? 'on' : 'off'}
                  </span>
                </div>
                {error && (
                  <p id={`${id}-error`} className="text-xs text-red-700">
                    {error}
                  </p>
                )}
              </div>
            </li>
          );
        })}
      </ul>
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
