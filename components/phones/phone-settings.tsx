'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { queryKeys } from '@/components/query-keys';
import type { Phone } from '@/components/wire';
import {
  MAX_DAILY_CAP,
  MAX_HOURLY_CAP,
  MAX_JITTER_SECONDS,
  MAX_LABEL_LENGTH,
  MAX_MESSAGES_PER_MINUTE,
  MAX_MONTHLY_RECIPIENT_CAP,
} from '@/lib/phones/limits';
import { ApiProblem, api } from '../api';
import { useGroups } from '../lists';
import { Button } from '../ui/button';
import { Field } from '../ui/field';
import { Section } from '../ui/section';
import { ErrorState } from '../ui/states';
import { useRefresh } from '../use-refresh';

type Form = { label: string; group_id: string } & Record<NumberKey, string>;

type NumberKey = 'messages_per_minute' | 'daily_cap' | 'hourly_cap' | 'monthly_recipient_cap' | 'jitter_seconds';

/**
 * The phone's pacing and quotas, one row each: what an empty field means (a cap: none, sent as null;
 * the delay: 0), the bounds lib/phones/limits.ts sets, and the hint.
 */
const NUMBER_FIELDS: ReadonlyArray<{
  key: NumberKey;
  label: string;
  min: number;
  max: number;
  emptyIs?: 'no cap' | 'zero';
  hint: string;
}> = [
  {
    key: 'messages_per_minute',
    label: 'Messages per minute',
    min: 1,
    max: MAX_MESSAGES_PER_MINUTE,
    hint: `How fast the phone is handed messages, 1 to ${MAX_MESSAGES_PER_MINUTE}.`,
  },
  {
    key: 'daily_cap',
    label: 'Daily cap',
    min: 1,
    max: MAX_DAILY_CAP,
    emptyIs: 'no cap',
    hint: 'Most messages it sends per day (UTC); empty for no cap.',
  },
  {
    key: 'hourly_cap',
    label: 'Hourly cap',
    min: 1,
    max: MAX_HOURLY_CAP,
    emptyIs: 'no cap',
    hint: 'Most messages in any 60 minutes; past it messages wait, queued. Empty for no cap.',
  },
  {
    key: 'monthly_recipient_cap',
    label: 'Monthly recipient cap',
    min: 1,
    max: MAX_MONTHLY_RECIPIENT_CAP,
    emptyIs: 'no cap',
    hint: 'Most distinct numbers it texts a calendar month (UTC); new numbers past it are refused. Empty for no cap.',
  },
  {
    key: 'jitter_seconds',
    label: 'Random delay (seconds)',
    min: 0,
    max: MAX_JITTER_SECONDS,
    emptyIs: 'zero',
    hint: `Up to this long between two of its messages, 0 to ${MAX_JITTER_SECONDS}; 0 for none.`,
  },
];

/** What a number field's text is sent as. */
function numberOf(text: string, emptyIs: 'no cap' | 'zero' | undefined): number | null {
  if (text !== '') return Number(text);
  return emptyIs === 'no cap' ? null : 0;
}

const capText = (cap: number | null) => (cap === null ? '' : String(cap));

function formOf(phone: Phone): Form {
  return {
    label: phone.label ?? '',
    group_id: String(phone.group_id),
    messages_per_minute: String(phone.messages_per_minute),
    daily_cap: capText(phone.daily_cap),
    hourly_cap: capText(phone.hourly_cap),
    monthly_recipient_cap: capText(phone.monthly_recipient_cap),
    jitter_seconds: String(phone.jitter_seconds),
  };
}

/** Rename the phone, move it to another group, and set its pacing and quotas: one PATCH of what changed. */
export function PhoneSettings({ phone }: { phone: Phone }) {
  const [form, setForm] = useState<Form>(() => formOf(phone));
  const ids = useId();
  const queryClient = useQueryClient();
  const refresh = useRefresh();
  const groups = useGroups();
  const saved = formOf(phone);
  const changed = (Object.keys(form) as Array<keyof Form>).filter((key) => form[key] !== saved[key]);
  const save = useMutation({
    meta: { success: 'Phone saved' },
    mutationFn: () => {
      const body: Record<string, unknown> = {};
      if (changed.includes('label')) body.label = form.label.trim() || null;
      if (changed.includes('group_id')) body.group_id = Number(form.group_id);
      for (const field of NUMBER_FIELDS) {
        if (changed.includes(field.key)) body[field.key] = numberOf(form[field.key], field.emptyIs);
      }
      return api<Phone>(`/api/v1/phones/${phone.id}`, { method: 'PATCH', body });
    },
    onSuccess: (updated) => {
      queryClient.setQueryData(queryKeys.phones.one(phone.id), updated);
      setForm(formOf(updated));
      return refresh('phones', 'groups');
    },
  });
  const problem = save.error instanceof ApiProblem ? save.error : undefined;
  const fieldError = (path: string) =>
    problem?.fieldError(path) ??
    (path === 'group_id' && problem?.code === 'GROUP_NOT_FOUND' ? problem.message : undefined);
  const unplaced = problem && !(Object.keys(form) as Array<keyof Form>).some((p) => fieldError(p));

  return (
    <Section title="Name, group, pacing and quotas">
      <form
        className="grid grid-cols-1 items-start gap-4 sm:grid-cols-2"
        onSubmit={(event) => {
          event.preventDefault();
          save.mutate();
        }}
      >
        <Field
          id={`${ids}-label`}
          label="Label"
          maxLength={MAX_LABEL_LENGTH}
          value={form.label}
          onChange={(e) => setForm({ ...form, label: e.target.value })}
          hint="Shown beside the number; empty for none."
          error={fieldError('label')}
        />
        <div className="flex flex-col gap-1">
          <label htmlFor={`${ids}-group`} className="text-sm font-medium text-slate-800">
            Group
          </label>
          <select
            id={`${ids}-group`}
            className="rounded-md border border-slate-300 px-2 py-1.5 text-sm aria-invalid:border-red-600"
            value={form.group_id}
            aria-invalid={fieldError('group_id') ? true : undefined}
            aria-describedby={fieldError('group_id') ? `${ids}-group-error` : `${ids}-group-hint`}
            onChange={(e) => setForm({ ...form, group_id: e.target.value })}
          >
            {(groups.data ?? []).map((g) => (
              <option key={g.id} value={g.id}>
                {g.name}
                {g.is_default ? ' (default)' : ''}
              </option>
            ))}
            {!groups.data?.some((g) => String(g.id) === form.group_id) && (
              <option value={form.group_id}>Group #{form.group_id}</option>
            )}
          </select>
          <p id={`${ids}-group-hint`} className="text-xs text-slate-500">
            Its messages are paid from this group’s credits.
          </p>
          {fieldError('group_id') && (
            <p id={`${ids}-group-error`} className="text-xs text-red-700">
              {fieldError('group_id')}
            </p>
          )}
        </div>
        {NUMBER_FIELDS.map((field) => (
          <Field
            key={field.key}
            id={`${ids}-${field.key}`}
            label={field.label}
            type="number"
            inputMode="numeric"
            min={field.min}
            max={field.max}
            step={1}
            required={!field.emptyIs}
            {...(field.emptyIs === 'no cap' ? { placeholder: 'No cap' } : {})}
            value={form[field.key]}
            onChange={(e) => setForm({ ...form, [field.key]: e.target.value })}
            hint={field.hint}
            error={fieldError(field.key)}
          />
        ))}
        {save.error && (!problem || unplaced) && (
          <div className="sm:col-span-2">
            <ErrorState error={save.error} />
          </div>
        )}
        <div className="flex gap-2 sm:col-span-2">
          <Button type="submit" disabled={save.isPending || changed.length === 0}>
            {save.isPending ? 'Saving…' : 'Save changes'}
          </Button>
          <Button variant="secondary" disabled={changed.length === 0} onClick={() => setForm(saved)}>
            Undo changes
          </Button>
        </div>
      </form>
    </Section>
  );
}
