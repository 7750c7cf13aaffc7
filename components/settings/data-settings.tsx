'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import type { DataSettings, DataSettingsChange } from '@/lib/retention/schemas';
import { ApiProblem, api } from '../api';
import { queryKeys } from '../query-keys';
import { Button } from '../ui/button';
import { ConfirmDialog } from '../ui/confirm';
import { Section } from '../ui/section';
import { ErrorState, Loading } from '../ui/states';
import { useRefresh } from '../use-refresh';

type Mode = DataSettings['instance']['content_mode'];

const MODE_TEXT: Record<Mode, string> = {
  hash: 'replaced by its SHA-256 fingerprint',
  delete: 'deleted',
};

const days = (n: number | null) => (n === null ? 'forever' : `${n} day${n === 1 ? '' : 's'}`);

/** Settings → Data: how long the account's message text is kept, and what the instance keeps. */
export function DataSettingsPanel() {
  const settings = useQuery({
    queryKey: queryKeys.dataSettings.root,
    queryFn: () => api<DataSettings>('/api/v1/settings/data'),
  });
  if (settings.isPending) return <Loading label="Loading the data settings…" />;
  if (settings.error) return <ErrorState error={settings.error} onRetry={() => settings.refetch()} />;
  const { instance } = settings.data;
  return (
    <div className="mt-6 flex flex-col gap-6">
      <Section title="Message text">
        <p className="mb-4 text-sm text-slate-600">
          Once a message is final (delivered, failed, expired, cancelled or received) and older than the limit, its text
          is removed. The message itself stays: it still counts in statistics, credits and the ledger. Queued and
          sending messages are never touched.
        </p>
        <ContentForm key={JSON.stringify(settings.data.account)} settings={settings.data} />
      </Section>
      <Section title="Kept by this instance">
        <dl className="grid grid-cols-1 gap-x-6 gap-y-2 text-sm sm:grid-cols-[max-content_1fr]">
          <dt className="font-medium text-slate-600">Message text</dt>
          <dd>
            {instance.content_days === null
              ? 'Kept forever'
              : `${days(instance.content_days)}, then ${MODE_TEXT[instance.content_mode]}`}
            {instance.hash_counterpart ? '; the other party’s number is hashed too' : ''}
          </dd>
          <dt className="font-medium text-slate-600">Webhook delivery log</dt>
          <dd>{days(instance.webhook_deliveries_days)}</dd>
          <dt className="font-medium text-slate-600">Phone heartbeat history</dt>
          <dd>{days(instance.heartbeats_days)}</dd>
          <dt className="font-medium text-slate-600">Audit log</dt>
          <dd>{days(instance.audit_days)}</dd>
          <dt className="font-medium text-slate-600">Expired codes</dt>
          <dd>Removed a day after they expire</dd>
        </dl>
        <p className="mt-4 text-xs text-slate-600">
          The operator sets these (RETENTION_* settings). An account may keep its message text for less time than the
          instance, never longer.
        </p>
      </Section>
    </div>
  );
}

/** Whether `change` removes more than what applies today (the sweep will purge it, for good). */
function isStricter(current: DataSettings['message_content'], next: DataSettings['message_content']): boolean {
  return (
    (next.days !== null && (current.days === null || next.days < current.days)) ||
    (next.mode === 'delete' && current.mode !== 'delete') ||
    (next.hash_counterpart && !current.hash_counterpart)
  );
}

function ContentForm({ settings }: { settings: DataSettings }) {
  const ids = useId();
  const refresh = useRefresh();
  const { instance, account, message_content: current } = settings;
  const [limited, setLimited] = useState(account.content_days !== null);
  const [dayText, setDayText] = useState(String(account.content_days ?? instance.content_days ?? 90));
  const [mode, setMode] = useState<Mode | ''>(account.content_mode ?? '');
  const [counterpart, setCounterpart] = useState<'' | 'hash'>(account.hash_counterpart ? 'hash' : '');
  const [confirming, setConfirming] = useState(false);

  const change: DataSettingsChange = {
    content_days: limited ? Number(dayText) : null,
    content_mode: mode === '' ? null : mode,
    hash_counterpart: counterpart === 'hash' ? true : null,
  };
  const next = {
    days:
      change.content_days == null
        ? instance.content_days
        : Math.min(change.content_days, instance.content_days ?? Number.POSITIVE_INFINITY),
    mode:
      instance.content_mode === 'delete' || change.content_mode === 'delete' ? ('delete' as const) : ('hash' as const),
    hash_counterpart: instance.hash_counterpart || change.hash_counterpart === true,
  };

  const save = useMutation({
    mutationFn: () => api<DataSettings>('/api/v1/settings/data', { method: 'PATCH', body: change }),
    meta: { success: 'Data settings saved.' },
    onSuccess: () => refresh('dataSettings'),
    onSettled: () => setConfirming(false),
  });
  const problem = save.error instanceof ApiProblem ? save.error : undefined;
  const fieldError = (path: string) => problem?.errors.find((error) => error.path === path)?.message;
  const daysError = fieldError('content_days');

  return (
    <form
      className="flex flex-col gap-5"
      onSubmit={(event) => {
        event.preventDefault();
        if (isStricter(current, next)) setConfirming(true);
        else save.mutate();
      }}
    >
      <p className="text-sm">
        Now: <strong>{current.days === null ? 'kept forever' : `kept ${days(current.days)}`}</strong>
        {current.days === null ? '' : `, then ${MODE_TEXT[current.mode]}`}
        {current.days !== null && current.hash_counterpart ? ', with the other party’s number hashed' : ''}.
      </p>

      <fieldset className="flex flex-col gap-2">
        <legend className="text-sm font-medium text-slate-800">How long</legend>
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" checked={limited} onChange={(event) => setLimited(event.target.checked)} />
          Remove the text of this account’s messages sooner than the instance
        </label>
        {limited && (
          <div className="flex flex-col gap-1">
            <label htmlFor={`${ids}-days`} className="text-sm font-medium text-slate-800">
              Days to keep message text
            </label>
            <input
              id={`${ids}-days`}
              type="number"
              min={1}
              max={instance.content_days ?? 36_500}
              required
              value={dayText}
              onChange={(event) => setDayText(event.target.value)}
              aria-invalid={daysError ? true : undefined}
              aria-describedby={`${ids}-days-hint${daysError ? ` ${ids}-days-error` : ''}`}
              className="w-32 rounded-md border border-slate-300 px-3 py-1.5 text-sm focus-visible:outline-2 focus-visible:outline-slate-900 aria-invalid:border-red-600"
            />
            <p id={`${ids}-days-hint`} className="text-xs text-slate-600">
              {instance.content_days === null
                ? 'The instance keeps message text forever.'
                : `At most ${instance.content_days}: the instance keeps message text ${days(instance.content_days)}.`}
            </p>
            {daysError && (
              <p id={`${ids}-days-error`} className="text-xs text-red-700">
                {daysError}
              </p>
            )}
          </div>
        )}
      </fieldset>

      <div className="flex flex-col gap-1">
        <label htmlFor={`${ids}-mode`} className="text-sm font-medium text-slate-800">
          What happens to old text
        </label>
        <select
          id={`${ids}-mode`}
          className="w-full max-w-md rounded-md border border-slate-300 px-2 py-1.5 text-sm"
          value={mode}
          onChange={(event) => setMode(event.target.value as Mode | '')}
        >
          <option value="">As the instance ({MODE_TEXT[instance.content_mode]})</option>
          <option value="hash" disabled={instance.content_mode === 'delete'}>
            Replaced by its SHA-256 fingerprint
          </option>
          <option value="delete">Deleted</option>
        </select>
        {fieldError('content_mode') && <p className="text-xs text-red-700">{fieldError('content_mode')}</p>}
      </div>

      <div className="flex flex-col gap-1">
        <label htmlFor={`${ids}-counterpart`} className="text-sm font-medium text-slate-800">
          The other party’s number
        </label>
        <select
          id={`${ids}-counterpart`}
          className="w-full max-w-md rounded-md border border-slate-300 px-2 py-1.5 text-sm"
          value={counterpart}
          onChange={(event) => setCounterpart(event.target.value as '' | 'hash')}
        >
          <option value="">As the instance ({instance.hash_counterpart ? 'hashed' : 'kept'})</option>
          <option value="hash">Hashed with the text</option>
        </select>
      </div>

      <div className="flex items-center gap-3">
        <Button type="submit" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save'}
        </Button>
        {problem && problem.errors.length === 0 && <ErrorState error={problem} />}
      </div>

      <ConfirmDialog
        open={confirming}
        title="Remove message text for good?"
        confirmLabel="Save and remove"
        pending={save.isPending}
        onConfirm={() => save.mutate()}
        onCancel={() => setConfirming(false)}
      >
        <p>
          At the next retention sweep, the text of every final message older than {days(next.days)} is{' '}
          {MODE_TEXT[next.mode]}
          {next.hash_counterpart ? ', and the other party’s number hashed' : ''}. This cannot be undone. The messages
          stay in your lists, statistics and ledger.
        </p>
      </ConfirmDialog>
    </form>
  );
}
