'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { SKIP_REASON_TEXT } from '@/lib/messages/gate-reasons';
import { ApiProblem, api } from '../api';
import { useGroups, usePhones, useWebhooks } from '../lists';
import { queryKeys } from '../query-keys';
import { Button } from '../ui/button';
import { ConfirmDialog } from '../ui/confirm';
import { Field } from '../ui/field';
import { Section } from '../ui/section';
import { EmptyState, ErrorState, Loading } from '../ui/states';
import { useRefresh } from '../use-refresh';
import type { AutomationSettings, InboundRule, Phone, RuleAction, RulesTestResult } from '../wire';
import { EmailAddressesPanel } from './email-addresses-panel';
import { RuleForm, type WebhookOption } from './rule-form';

function describeMatch(rule: InboundRule): string {
  const parts = [
    rule.match.keyword ? `starts with “${rule.match.keyword}”` : null,
    rule.match.pattern ? `matches /${rule.match.pattern}/` : null,
    rule.match.from_prefix ? `from ${rule.match.from_prefix}…` : null,
  ].filter(Boolean);
  return parts.length ? parts.join(', ') : 'any message';
}

function describeAction(action: RuleAction): string {
  switch (action.type) {
    case 'reply':
      return `reply “${action.content}”`;
    case 'forward_sms':
      return `forward to ${action.to}`;
    case 'forward_email':
      return `email ${action.to}`;
    case 'webhook':
      return 'send to a webhook';
  }
}

function useAutomationOptions() {
  const phones = usePhones();
  const groups = useGroups();
  const webhooks = useWebhooks();
  return {
    phones: phones.data ?? [],
    groups: groups.data ?? [],
    webhooks: (webhooks.data ?? []).map((webhook): WebhookOption => ({ id: webhook.id, url: webhook.url })),
  };
}

export function AutomationPage() {
  const options = useAutomationOptions();
  return (
    <>
      <h1 className="sr-only">Automation</h1>
      <div className="grid gap-6 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <RulesPanel {...options} />
        <div className="flex flex-col gap-6">
          <TryItPanel phones={options.phones} />
          <HelpPanel />
          <EmailAddressesPanel />
        </div>
      </div>
    </>
  );
}

function RulesPanel({ phones, groups, webhooks }: ReturnType<typeof useAutomationOptions>) {
  const rules = useQuery({
    queryKey: queryKeys.inboundRules.list(),
    queryFn: () => api<{ data: InboundRule[] }>('/api/v1/inbound-rules'),
  });
  const [editing, setEditing] = useState<string | 'new' | null>(null);
  const [deleting, setDeleting] = useState<InboundRule | null>(null);
  const refresh = useRefresh();
  const patch = useMutation({
    mutationFn: ({ id, body }: { id: string; body: Record<string, unknown> }) =>
      api<InboundRule>(`/api/v1/inbound-rules/${id}`, { method: 'PATCH', body }),
    onSuccess: () => refresh('inboundRules'),
  });
  const remove = useMutation({
    mutationFn: (id: string) => api(`/api/v1/inbound-rules/${id}`, { method: 'DELETE' }),
    meta: { success: 'Rule deleted' },
    onSuccess: async () => {
      setDeleting(null);
      await refresh('inboundRules');
    },
  });
  const list = rules.data?.data ?? [];

  return (
    <Section
      title="Inbound rules"
      actions={
        editing !== 'new' && (
          <Button onClick={() => setEditing('new')} disabled={list.length >= 100}>
            New rule
          </Button>
        )
      }
    >
      <p className="mb-4 text-sm text-slate-600">
        When a phone receives a message, the first rule that matches acts; later rules act too only after a rule that
        lets them. STOP and START are handled before any rule. Replies and SMS forwards are sent from the phone that
        received the message and cost one credit each; one number gets at most a few automatic texts an hour, and they
        go only to your phones’ countries unless your sending settings list the allowed countries.
      </p>
      {editing === 'new' && (
        <div className="mb-6 rounded-md border border-slate-300 p-4">
          <RuleForm phones={phones} groups={groups} webhooks={webhooks} onDone={() => setEditing(null)} />
        </div>
      )}
      {rules.isPending ? (
        <Loading />
      ) : rules.error ? (
        <ErrorState error={rules.error} onRetry={() => rules.refetch()} />
      ) : list.length === 0 ? (
        <EmptyState title="No rules yet">
          Create one to answer a keyword like HOURS, forward messages to your desk, or hand them to a webhook.
        </EmptyState>
      ) : (
        <ol className="flex flex-col gap-3" aria-label="Rules in the order they run">
          {list.map((rule, index) =>
            editing === rule.id ? (
              <li key={rule.id} className="rounded-md border border-slate-300 p-4">
                <RuleForm
                  rule={rule}
                  phones={phones}
                  groups={groups}
                  webhooks={webhooks}
                  onDone={() => setEditing(null)}
                />
              </li>
            ) : (
              <li
                key={rule.id}
                className="flex flex-col gap-3 rounded-md border border-slate-200 p-3 sm:flex-row sm:items-center"
              >
                <div className="min-w-0 flex-1">
                  <p className="font-medium">
                    <span className="mr-2 text-slate-500">{rule.position}.</span>
                    {rule.name}
                    {!rule.enabled && (
                      <span className="ml-2 rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-700">off</span>
                    )}
                  </p>
                  <p className="break-words text-sm text-slate-600">
                    When {describeMatch(rule)}: {rule.actions.map(describeAction).join('; ')}
                    {rule.continue ? ', then keep going' : ''}.
                  </p>
                </div>
                <div className="flex flex-wrap gap-2">
                  <Button
                    variant="secondary"
                    aria-label={`Move ${rule.name} up`}
                    disabled={index === 0 || patch.isPending}
                    onClick={() => patch.mutate({ id: rule.id, body: { position: rule.position - 1 } })}
                  >
                    ↑
                  </Button>
                  <Button
                    variant="secondary"
                    aria-label={`Move ${rule.name} down`}
                    disabled={index === list.length - 1 || patch.isPending}
                    onClick={() => patch.mutate({ id: rule.id, body: { position: rule.position + 1 } })}
                  >
                    ↓
                  </Button>
                  <Button
                    variant="secondary"
                    aria-label={`${rule.enabled ? 'Turn off' : 'Turn on'} ${rule.name}`}
                    disabled={patch.isPending}
                    onClick={() => patch.mutate({ id: rule.id, body: { enabled: !rule.enabled } })}
                  >
                    {rule.enabled ? 'Turn off' : 'Turn on'}
                  </Button>
                  <Button variant="secondary" aria-label={`Edit ${rule.name}`} onClick={() => setEditing(rule.id)}>
                    Edit
                  </Button>
                  <Button variant="secondary" aria-label={`Delete ${rule.name}`} onClick={() => setDeleting(rule)}>
                    Delete
                  </Button>
                </div>
              </li>
            ),
          )}
        </ol>
      )}
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete the rule “${deleting?.name ?? ''}”?`}
        confirmLabel="Delete rule"
        pending={remove.isPending}
        onConfirm={() => deleting && remove.mutate(deleting.id)}
        onCancel={() => setDeleting(null)}
      >
        Messages it already sent stay as they are; new messages will no longer be answered by it.
      </ConfirmDialog>
    </Section>
  );
}

/** Calls the test endpoint as the person types (debounced), so the plan shows beside the rules. */
function TryItPanel({ phones }: { phones: Phone[] }) {
  const [phone, setPhone] = useState('');
  const [from, setFrom] = useState('+14155550123');
  const [text, setText] = useState('');
  const [query, setQuery] = useState<{ phone: string; from: string; text: string } | null>(null);
  const receiving = phone || phones[0]?.phone || '';
  useEffect(() => {
    if (!receiving || !from.trim() || !text) {
      setQuery(null);
      return;
    }
    const timer = setTimeout(() => setQuery({ phone: receiving, from: from.trim(), text }), 300);
    return () => clearTimeout(timer);
  }, [receiving, from, text]);
  const result = useQuery({
    queryKey: queryKeys.inboundRules.test(query),
    queryFn: () => api<RulesTestResult>('/api/v1/inbound-rules/test', { body: query }),
    enabled: query !== null,
  });
  const fieldProblem = result.error instanceof ApiProblem ? result.error : undefined;

  return (
    <Section title="Try it">
      <div className="flex flex-col gap-3">
        <div className="flex flex-col gap-1">
          <label htmlFor="try-phone" className="text-sm font-medium text-slate-800">
            Received by
          </label>
          <select
            id="try-phone"
            className="rounded-md border border-slate-300 px-2 py-1.5 text-sm"
            value={receiving}
            onChange={(event) => setPhone(event.target.value)}
          >
            {phones.map((option) => (
              <option key={option.id} value={option.phone}>
                {option.label ? `${option.label} (${option.phone})` : option.phone}
              </option>
            ))}
          </select>
        </div>
        <Field
          id="try-from"
          label="From"
          value={from}
          onChange={(event) => setFrom(event.target.value)}
          error={fieldProblem?.fieldError('from')}
        />
        <Field
          id="try-text"
          label="Message"
          placeholder="Type a message to see what would happen"
          value={text}
          onChange={(event) => setText(event.target.value)}
          error={fieldProblem?.fieldError('text')}
        />
        <output aria-live="polite" className="text-sm" data-testid="try-result">
          {query === null ? (
            <span className="text-slate-500">Nothing is sent: this only shows what would happen.</span>
          ) : result.isPending ? (
            <span className="text-slate-500">Checking…</span>
          ) : result.error ? (
            <span className="text-red-700">{result.error.message}</span>
          ) : (
            <TestResult result={result.data} />
          )}
        </output>
      </div>
    </Section>
  );
}

function TestResult({ result }: { result: RulesTestResult }) {
  if (result.opt_out) {
    return (
      <p>
        {result.opt_out === 'opted_out' ? 'The sender would be opted out.' : 'The sender would be opted back in.'} No
        rule runs.
      </p>
    );
  }
  if (result.rules.length === 0) return <p>No rule matches: nothing would happen.</p>;
  return (
    <div className="flex flex-col gap-2">
      {result.rules.map((rule) => (
        <div key={rule.rule_id ?? 'help'}>
          <p className="font-medium">{rule.rule_id ? `Rule “${rule.name}” matches` : 'HELP answers'}</p>
          <ul className="list-disc pl-5">
            {rule.actions.map((action, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the plan's order is its identity
              <li key={index}>
                {action.would === 'skip' ? (
                  <span className="text-amber-800">
                    Skipped ({action.action.replace('_', ' ')}): {action.reason ? SKIP_REASON_TEXT[action.reason] : ''}
                  </span>
                ) : action.content !== undefined && action.action !== 'forward_email' ? (
                  <span>
                    Texts {action.to}: “{action.content}” ({action.segments} segment{action.segments === 1 ? '' : 's'},{' '}
                    {action.credits} credit)
                  </span>
                ) : action.action === 'forward_email' ? (
                  <span>Emails {action.to}</span>
                ) : (
                  <span>Sends the message to a webhook</span>
                )}
              </li>
            ))}
          </ul>
        </div>
      ))}
      <p className="text-slate-600">
        Total: {result.credits} credit{result.credits === 1 ? '' : 's'}.
      </p>
    </div>
  );
}

function HelpPanel() {
  const settings = useQuery({
    queryKey: queryKeys.automationSettings.root,
    queryFn: () => api<AutomationSettings>('/api/v1/inbound-rules/settings'),
  });
  return (
    <Section title="HELP responder">
      {settings.isPending ? (
        <Loading />
      ) : settings.error ? (
        <ErrorState error={settings.error} onRetry={() => settings.refetch()} />
      ) : (
        <HelpForm initial={settings.data.help_reply ?? ''} />
      )}
    </Section>
  );
}

function HelpForm({ initial }: { initial: string }) {
  const [text, setText] = useState(initial);
  const refresh = useRefresh();
  const save = useMutation({
    mutationFn: (value: string | null) =>
      api<AutomationSettings>('/api/v1/inbound-rules/settings', { method: 'PATCH', body: { help_reply: value } }),
    meta: { success: 'HELP responder saved' },
    onSuccess: () => refresh('automationSettings'),
  });
  const error = save.error instanceof ApiProblem ? save.error.fieldError('help_reply') : undefined;
  return (
    <form
      className="flex flex-col gap-3"
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate(text.trim() === '' ? null : text);
      }}
    >
      <Field
        id="help-reply"
        label="Answer to HELP or INFO"
        hint="Off when empty. Sent before any rule, from the phone that was texted, for one credit."
        placeholder="Acme Dental: call +14155550100. Reply STOP to opt out."
        value={text}
        onChange={(event) => setText(event.target.value)}
        maxLength={1600}
        error={error}
      />
      <div>
        <Button type="submit" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save'}
        </Button>
      </div>
    </form>
  );
}
