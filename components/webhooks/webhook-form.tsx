'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { queryKeys } from '@/components/query-keys';
import type { CatalogueEntry, Webhook } from '@/components/wire';
import { ApiProblem, api } from '../api';
import { usePhones } from '../lists';
import { Button } from '../ui/button';
import { Field } from '../ui/field';
import { ErrorState, Loading } from '../ui/states';
import { useRefresh } from '../use-refresh';

type Form = {
  url: string;
  description: string;
  events: string[];
  phone_filters: string[];
  accept_replies: boolean;
  format: 'standard' | 'twilio';
};

const emptyForm: Form = {
  url: '',
  description: '',
  events: [],
  phone_filters: [],
  accept_replies: false,
  format: 'standard',
};

function toggle(list: string[], value: string): string[] {
  return list.includes(value) ? list.filter((v) => v !== value) : [...list, value];
}

/** The form that creates a webhook; hands the new signing secret to `onSecret`. */
export function WebhookForm({ onSecret }: { onSecret: (secret: { label: string; value: string }) => void }) {
  const refreshAll = useRefresh();
  const [form, setForm] = useState(emptyForm);
  const create = useMutation({
    meta: { success: 'Webhook created' },
    mutationFn: () =>
      api<Webhook & { secret: string }>('/api/v1/webhooks', {
        body: {
          ...form,
          description: form.description || undefined,
          accept_replies:
            form.format === 'twilio' ? undefined : form.accept_replies && form.events.includes('message.received'),
        },
      }),
    onSuccess: (created) => {
      // A Twilio-format webhook is signed with the account's Auth Token: its own secret signs nothing.
      if (created.format !== 'twilio') onSecret({ label: 'Signing secret of the new webhook', value: created.secret });
      setForm(emptyForm);
      return refreshAll('webhooks');
    },
  });
  const problem = create.error instanceof ApiProblem ? create.error : undefined;

  return (
    <form
      className="mb-6 space-y-4"
      onSubmit={(event) => {
        event.preventDefault();
        create.mutate();
      }}
    >
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        <Field
          id="webhook-url"
          label="URL (https)"
          type="url"
          placeholder="https://example.com/simgate"
          required
          value={form.url}
          onChange={(e) => setForm({ ...form, url: e.target.value })}
          error={problem?.fieldError('url')}
        />
        <Field
          id="webhook-description"
          label="Description"
          maxLength={200}
          value={form.description}
          onChange={(e) => setForm({ ...form, description: e.target.value })}
        />
      </div>
      <EventsFieldset
        events={form.events}
        onToggle={(type) => setForm({ ...form, events: toggle(form.events, type) })}
        error={problem?.fieldError('events')}
      />
      <PhoneFiltersFieldset
        selected={form.phone_filters}
        onToggle={(phone) => setForm({ ...form, phone_filters: toggle(form.phone_filters, phone) })}
      />
      <FormatFieldset
        format={form.format}
        onChange={(format) => setForm({ ...form, format })}
        error={problem?.fieldError('format')}
      />
      {form.format === 'standard' && (
        <AcceptRepliesSwitch
          id="webhook-accept-replies"
          checked={form.accept_replies && form.events.includes('message.received')}
          disabled={!form.events.includes('message.received')}
          onChange={(accept_replies) => setForm({ ...form, accept_replies })}
          error={problem?.fieldError('accept_replies')}
        />
      )}
      <Button type="submit" disabled={create.isPending}>
        {create.isPending ? 'Creating…' : 'Create webhook'}
      </Button>
      {problem && problem.errors.length === 0 && <ErrorState error={problem} />}
    </form>
  );
}

/** One checkbox per subscribable event of the catalogue. */
function EventsFieldset({
  events,
  onToggle,
  error,
}: {
  events: string[];
  onToggle: (type: string) => void;
  error?: string;
}) {
  const catalogue = useQuery({
    queryKey: queryKeys.webhookEvents.root,
    queryFn: () => api<{ data: CatalogueEntry[] }>('/api/v1/webhooks/events'),
    staleTime: Number.POSITIVE_INFINITY,
  });
  return (
    <fieldset>
      <legend className="text-sm font-medium">Events</legend>
      {catalogue.isPending && <Loading label="Loading events…" />}
      <div className="mt-1 grid grid-cols-1 gap-1 sm:grid-cols-2">
        {catalogue.data?.data
          .filter((entry) => entry.subscribable)
          .map((entry) => (
            <label key={entry.type} className="flex items-start gap-2 text-sm" title={entry.description}>
              <input type="checkbox" checked={events.includes(entry.type)} onChange={() => onToggle(entry.type)} />
              <span>
                <code>{entry.type}</code>
                <span className="block text-xs text-slate-500">{entry.description}</span>
              </span>
            </label>
          ))}
      </div>
      {error && <p className="text-xs text-red-700">{error}</p>}
    </fieldset>
  );
}

/** Simgate's own body, or Twilio's requests (for code written against Twilio's webhooks). */
function FormatFieldset({
  format,
  onChange,
  error,
}: {
  format: Form['format'];
  onChange: (format: Form['format']) => void;
  error?: string;
}) {
  return (
    <fieldset>
      <legend className="text-sm font-medium">Format</legend>
      <div className="mt-1 flex flex-col gap-1 text-sm">
        <label className="flex items-center gap-2">
          <input
            type="radio"
            name="webhook-format"
            checked={format === 'standard'}
            onChange={() => onChange('standard')}
          />
          Simgate (JSON, Standard Webhooks signature)
        </label>
        <label className="flex items-center gap-2">
          <input type="radio" name="webhook-format" checked={format === 'twilio'} onChange={() => onChange('twilio')} />
          Twilio (form-encoded, X-Twilio-Signature with your Auth Token; a TwiML answer is sent as the reply)
        </label>
      </div>
      {error && <p className="text-xs text-red-700">{error}</p>}
    </fieldset>
  );
}

/** One checkbox per phone of the account; none checked means every phone. */
function PhoneFiltersFieldset({ selected, onToggle }: { selected: string[]; onToggle: (phone: string) => void }) {
  const phones = usePhones();
  return (
    <fieldset>
      <legend className="text-sm font-medium">Only for these phones (none: all phones)</legend>
      <div className="mt-1 flex flex-wrap gap-3">
        {(phones.data ?? []).map((phone) => (
          <label key={phone.id} className="flex items-center gap-2 text-sm">
            <input type="checkbox" checked={selected.includes(phone.phone)} onChange={() => onToggle(phone.phone)} />
            {phone.label ? `${phone.label} (${phone.phone})` : phone.phone}
          </label>
        ))}
      </div>
    </fieldset>
  );
}

/** The "accept replies" switch of a message.received webhook, with the one sentence on what it does. */
function AcceptRepliesSwitch({
  id,
  checked,
  disabled,
  onChange,
  error,
}: {
  id: string;
  checked: boolean;
  disabled: boolean;
  onChange: (value: boolean) => void;
  error?: string;
}) {
  return (
    <div className="flex flex-col gap-1">
      <label htmlFor={id} className="flex items-center gap-2 text-sm font-medium">
        <input
          id={id}
          type="checkbox"
          checked={checked}
          disabled={disabled}
          onChange={(e) => onChange(e.target.checked)}
        />
        Accept replies
      </label>
      <p className="text-xs text-slate-500">
        When your endpoint answers a received message with <code>{'{"reply": {"content": "…"}}'}</code>, that text is
        sent back to the sender from the phone that received it (one credit).
        {disabled ? ' Subscribe to message.received to use it.' : ''}
      </p>
      {error && <p className="text-xs text-red-700">{error}</p>}
    </div>
  );
}
