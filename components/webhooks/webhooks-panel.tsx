'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { queryKeys } from '@/components/query-keys';
import type { CatalogueEntry, Webhook } from '@/components/wire';
import { ApiProblem, api } from '../api';
import { usePhones } from '../lists';
import { Button } from '../ui/button';
import { ConfirmDialog } from '../ui/confirm';
import { Field } from '../ui/field';
import { ListView } from '../ui/list-view';
import { RelativeTime } from '../ui/relative-time';
import { SecretOnce } from '../ui/secret-once';
import { formatTime, Section } from '../ui/section';
import { EmptyState, ErrorState, Loading } from '../ui/states';
import { usePagedList } from '../use-paged-list';
import { useRefresh } from '../use-refresh';
import { WebhookDeliveries } from './webhook-deliveries';

function toggle(list: string[], value: string): string[] {
  return list.includes(value) ? list.filter((v) => v !== value) : [...list, value];
}

export function WebhooksPanel() {
  const refreshAll = useRefresh();
  const webhooks = usePagedList<Webhook>(queryKeys.webhooks.list(), '/api/v1/webhooks');
  const catalogue = useQuery({
    queryKey: queryKeys.webhookEvents.root,
    queryFn: () => api<{ data: CatalogueEntry[] }>('/api/v1/webhooks/events'),
    staleTime: Number.POSITIVE_INFINITY,
  });
  const phones = usePhones();
  const emptyForm = {
    url: '',
    description: '',
    events: [] as string[],
    phone_filters: [] as string[],
    accept_replies: false,
  };
  const [form, setForm] = useState(emptyForm);
  const [secret, setSecret] = useState<{ label: string; value: string } | null>(null);
  const [confirming, setConfirming] = useState<{ kind: 'delete' | 'rotate'; webhook: Webhook } | null>(null);
  const [openDeliveries, setOpenDeliveries] = useState<string | null>(null);
  const refresh = () => refreshAll('webhooks');

  const create = useMutation({
    meta: { success: 'Webhook created' },
    mutationFn: () =>
      api<Webhook & { secret: string }>('/api/v1/webhooks', {
        body: {
          ...form,
          description: form.description || undefined,
          accept_replies: form.accept_replies && form.events.includes('message.received'),
        },
      }),
    onSuccess: (created) => {
      setSecret({ label: 'Signing secret of the new webhook', value: created.secret });
      setForm(emptyForm);
      return refresh();
    },
  });
  const update = useMutation({
    mutationFn: ({ id, ...change }: { id: string; enabled?: boolean; accept_replies?: boolean }) =>
      api(`/api/v1/webhooks/${id}`, { method: 'PATCH', body: change }),
    onSuccess: refresh,
  });
  const reveal = useMutation({
    mutationFn: (id: string) => api<{ secret: string }>(`/api/v1/webhooks/${id}/secret`),
    onSuccess: (result) => setSecret({ label: 'Signing secret', value: result.secret }),
  });
  const test = useMutation({
    meta: { success: 'Test event queued' },
    mutationFn: (id: string) => api(`/api/v1/webhooks/${id}/test`, { method: 'POST' }),
    onSuccess: (_result, id) => {
      setOpenDeliveries(id);
      return refreshAll('deliveries');
    },
  });
  const confirm = useMutation({
    mutationFn: async ({ kind, webhook }: { kind: 'delete' | 'rotate'; webhook: Webhook }) =>
      kind === 'delete'
        ? api(`/api/v1/webhooks/${webhook.id}`, { method: 'DELETE' })
        : api<{ secret: string }>(`/api/v1/webhooks/${webhook.id}/rotate-secret`, { method: 'POST' }),
    onSuccess: (result, { kind }) => {
      setConfirming(null);
      if (kind === 'rotate' && result) {
        setSecret({
          label: 'New signing secret (the old one keeps signing for 24 h)',
          value: (result as { secret: string }).secret,
        });
      }
      return refresh();
    },
  });
  const problem = create.error instanceof ApiProblem ? create.error : undefined;
  const actionError = update.error ?? reveal.error ?? test.error;

  return (
    <Section title="Webhooks">
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
        <fieldset>
          <legend className="text-sm font-medium">Events</legend>
          {catalogue.isPending && <Loading label="Loading events…" />}
          <div className="mt-1 grid grid-cols-1 gap-1 sm:grid-cols-2">
            {catalogue.data?.data
              .filter((entry) => entry.subscribable)
              .map((entry) => (
                <label key={entry.type} className="flex items-start gap-2 text-sm" title={entry.description}>
                  <input
                    type="checkbox"
                    checked={form.events.includes(entry.type)}
                    onChange={() => setForm({ ...form, events: toggle(form.events, entry.type) })}
                  />
                  <span>
                    <code>{entry.type}</code>
                    <span className="block text-xs text-slate-500">{entry.description}</span>
                  </span>
                </label>
              ))}
          </div>
          {problem?.fieldError('events') && <p className="text-xs text-red-700">{problem.fieldError('events')}</p>}
        </fieldset>
        <fieldset>
          <legend className="text-sm font-medium">Only for these phones (none: all phones)</legend>
          <div className="mt-1 flex flex-wrap gap-3">
            {(phones.data ?? []).map((phone) => (
              <label key={phone.id} className="flex items-center gap-2 text-sm">
                <input
                  type="checkbox"
                  checked={form.phone_filters.includes(phone.phone)}
                  onChange={() => setForm({ ...form, phone_filters: toggle(form.phone_filters, phone.phone) })}
                />
                {phone.label ? `${phone.label} (${phone.phone})` : phone.phone}
              </label>
            ))}
          </div>
        </fieldset>
        <AcceptRepliesSwitch
          id="webhook-accept-replies"
          checked={form.accept_replies && form.events.includes('message.received')}
          disabled={!form.events.includes('message.received')}
          onChange={(accept_replies) => setForm({ ...form, accept_replies })}
          error={problem?.fieldError('accept_replies')}
        />
        <Button type="submit" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create webhook'}
        </Button>
        {problem && problem.errors.length === 0 && <ErrorState error={problem} />}
      </form>
      {secret && <SecretOnce label={secret.label} value={secret.value} onDone={() => setSecret(null)} />}
      {actionError && <ErrorState error={actionError} />}

      <ListView
        list={webhooks}
        empty={<EmptyState title="No webhooks yet">Add one to receive inbound SMS and delivery reports.</EmptyState>}
      >
        {(items) => (
          <ul className="space-y-3">
            {items.map((webhook) => (
              <li key={webhook.id} className="rounded-md border border-slate-200 p-4">
                <div className="flex flex-wrap items-start justify-between gap-3">
                  <div className="min-w-0">
                    <p className="truncate font-medium">{webhook.url}</p>
                    {webhook.format === 'smsgate' && (
                      <p className="mt-1">
                        <span className="rounded bg-indigo-100 px-1.5 py-0.5 text-xs font-medium text-indigo-900">
                          SMSGate format
                        </span>
                        <span className="ml-2 text-xs text-slate-600">managed through /api/3rdparty/v1/webhooks</span>
                      </p>
                    )}
                    {webhook.description && <p className="text-sm text-slate-600">{webhook.description}</p>}
                    <p className="mt-1 text-xs text-slate-500">
                      {webhook.events.join(', ')}
                      {webhook.phone_filters.length > 0 && ` · phones: ${webhook.phone_filters.join(', ')}`} · created{' '}
                      {formatTime(webhook.created_at)}
                    </p>
                    <WebhookHealthLine health={webhook.health} />
                    {!webhook.enabled && (
                      <p className="mt-1 text-xs text-amber-800">
                        Disabled{webhook.disabled_reason ? `: ${webhook.disabled_reason}` : ''}
                      </p>
                    )}
                  </div>
                  <div className="flex flex-wrap gap-2">
                    <label className="flex items-center gap-2 text-sm">
                      <input
                        type="checkbox"
                        checked={webhook.enabled}
                        onChange={(e) => update.mutate({ id: webhook.id, enabled: e.target.checked })}
                      />
                      Enabled
                      <span className="sr-only"> {webhook.url}</span>
                    </label>
                    {webhook.format === 'standard' && webhook.events.includes('message.received') && (
                      <label className="flex items-center gap-2 text-sm">
                        <input
                          type="checkbox"
                          checked={webhook.accept_replies}
                          onChange={(e) => update.mutate({ id: webhook.id, accept_replies: e.target.checked })}
                        />
                        Accepts replies
                        <span className="sr-only"> {webhook.url}</span>
                      </label>
                    )}
                    <Button variant="secondary" onClick={() => test.mutate(webhook.id)}>
                      Send test
                      <span className="sr-only"> of {webhook.url}</span>
                    </Button>
                    {webhook.format === 'standard' && (
                      <>
                        <Button variant="secondary" onClick={() => reveal.mutate(webhook.id)}>
                          Show secret
                          <span className="sr-only"> of {webhook.url}</span>
                        </Button>
                        <Button variant="secondary" onClick={() => setConfirming({ kind: 'rotate', webhook })}>
                          Rotate secret
                          <span className="sr-only"> of {webhook.url}</span>
                        </Button>
                      </>
                    )}
                    <Button
                      variant="secondary"
                      aria-expanded={openDeliveries === webhook.id}
                      onClick={() => setOpenDeliveries(openDeliveries === webhook.id ? null : webhook.id)}
                    >
                      Deliveries
                      <span className="sr-only"> of {webhook.url}</span>
                    </Button>
                    <Button variant="danger" onClick={() => setConfirming({ kind: 'delete', webhook })}>
                      Delete
                      <span className="sr-only"> {webhook.url}</span>
                    </Button>
                  </div>
                </div>
                {openDeliveries === webhook.id && <WebhookDeliveries webhookId={webhook.id} />}
              </li>
            ))}
          </ul>
        )}
      </ListView>
      <ConfirmDialog
        open={confirming !== null}
        title={confirming?.kind === 'delete' ? 'Delete this webhook?' : 'Rotate the signing secret?'}
        confirmLabel={confirming?.kind === 'delete' ? 'Delete webhook' : 'Rotate secret'}
        pending={confirm.isPending}
        onConfirm={() => confirming && confirm.mutate(confirming)}
        onCancel={() => setConfirming(null)}
      >
        {confirming?.kind === 'delete'
          ? 'No more events will be sent to it, and its delivery history is deleted.'
          : 'A new secret signs from now on; the current one keeps signing alongside it for 24 hours.'}
        {confirm.error && <ErrorState error={confirm.error} />}
      </ConfirmDialog>
    </Section>
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

/** Last delivery and the day's failure rate, so a failing receiver shows before it is disabled. */
function WebhookHealthLine({ health }: { health: Webhook['health'] }) {
  if (!health?.last_attempt_at) return <p className="mt-1 text-xs text-slate-600">No deliveries this week.</p>;
  const rate = health.failure_rate_24h;
  const failing = rate !== null && rate > 0;
  return (
    <p className={`mt-1 text-xs ${failing ? 'text-red-800' : 'text-slate-600'}`}>
      Last delivery <RelativeTime value={health.last_attempt_at} />
      {health.last_status_code !== null ? ` (HTTP ${health.last_status_code})` : ' (no answer)'}
      {rate !== null &&
        ` · ${Math.round(rate * 100)}% of ${health.attempts_24h} attempt${health.attempts_24h === 1 ? '' : 's'} failed in 24 h`}
    </p>
  );
}
