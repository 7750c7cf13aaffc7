'use client';

import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiProblem, api } from '../api';
import { Button } from '../ui/button';
import { Field } from '../ui/field';
import { useRefresh } from '../use-refresh';
import type { Group, InboundRule, Phone, RuleAction } from '../wire';

type MatchKind = 'any' | 'keyword' | 'pattern';
type ActionType = RuleAction['type'];

const ACTION_LABELS: Record<ActionType, string> = {
  reply: 'Reply to the sender',
  forward_sms: 'Forward by SMS',
  forward_email: 'Forward by email',
  webhook: 'Send to a webhook',
};

/** The one editable value of each action type: its field name and label. */
const ACTION_VALUE: Record<ActionType, { key: 'content' | 'to' | 'webhook_id'; label: string; placeholder: string }> = {
  reply: { key: 'content', label: 'Reply text', placeholder: 'Thanks {{from}}, we are open 9–5.' },
  forward_sms: { key: 'to', label: 'Forward to (E.164)', placeholder: '+14155550123' },
  forward_email: { key: 'to', label: 'Email address', placeholder: 'desk@example.com' },
  webhook: { key: 'webhook_id', label: 'Webhook', placeholder: '' },
};

const MAX_ACTIONS = 5;

/** An action being edited; `key` keeps React's identity of it when another is removed. */
type DraftAction = { key: number; type: ActionType; value: string };

let lastKey = 0;
const draft = (type: ActionType, value: string): DraftAction => {
  lastKey += 1;
  return { key: lastKey, type, value };
};

function draftOf(action: RuleAction): DraftAction {
  if (action.type === 'reply') return draft('reply', action.content);
  if (action.type === 'webhook') return draft('webhook', action.webhook_id);
  return draft(action.type, action.to);
}

function actionOf(draft: DraftAction): Record<string, string> {
  return { type: draft.type, [ACTION_VALUE[draft.type].key]: draft.value.trim() };
}

export type WebhookOption = { id: string; url: string };

/**
 * Creates or edits one inbound rule. Field errors come back from the API by path
 * (`match.pattern`, `actions.1.to`…) and show at the field they name.
 */
export function RuleForm({
  rule,
  phones,
  groups,
  webhooks,
  onDone,
}: {
  rule?: InboundRule;
  phones: Phone[];
  groups: Group[];
  webhooks: WebhookOption[];
  onDone: () => void;
}) {
  const idPrefix = rule ? `rule-${rule.id}` : 'rule-new';
  const [name, setName] = useState(rule?.name ?? '');
  const [enabled, setEnabled] = useState(rule?.enabled ?? true);
  const [kind, setKind] = useState<MatchKind>(
    rule?.match.keyword ? 'keyword' : rule?.match.pattern ? 'pattern' : 'any',
  );
  const [condition, setCondition] = useState(rule?.match.keyword ?? rule?.match.pattern ?? '');
  const [prefix, setPrefix] = useState(rule?.match.from_prefix ?? '');
  const [phoneIds, setPhoneIds] = useState<string[]>(rule?.scope.phone_ids ?? []);
  const [groupIds, setGroupIds] = useState<number[]>(rule?.scope.group_ids ?? []);
  const [actions, setActions] = useState<DraftAction[]>(rule ? rule.actions.map(draftOf) : [draft('reply', '')]);
  const [continues, setContinues] = useState(rule?.continue ?? false);
  const refresh = useRefresh();

  const save = useMutation({
    mutationFn: () => {
      const body = {
        name,
        enabled,
        match: {
          keyword: kind === 'keyword' ? condition.trim() : null,
          pattern: kind === 'pattern' ? condition : null,
          from_prefix: prefix.trim() || null,
        },
        scope: { phone_ids: phoneIds, group_ids: groupIds },
        actions: actions.map(actionOf),
        continue: continues,
      };
      return rule
        ? api<InboundRule>(`/api/v1/inbound-rules/${rule.id}`, { method: 'PATCH', body })
        : api<InboundRule>('/api/v1/inbound-rules', { body });
    },
    meta: { success: rule ? 'Rule saved' : 'Rule created' },
    onSuccess: async () => {
      await refresh('inboundRules');
      onDone();
    },
  });
  const problem = save.error instanceof ApiProblem ? save.error : undefined;
  const fieldError = (path: string) => problem?.fieldError(path);
  const unplaced = problem && problem.errors.length === 0 ? problem.message : undefined;

  const setAction = (index: number, change: Partial<DraftAction>) =>
    setActions((list) => list.map((action, i) => (i === index ? { ...action, ...change } : action)));

  return (
    <form
      className="flex flex-col gap-4"
      aria-label={rule ? `Edit rule ${rule.name}` : 'New rule'}
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate();
      }}
    >
      <Field
        id={`${idPrefix}-name`}
        label="Name"
        value={name}
        onChange={(event) => setName(event.target.value)}
        maxLength={100}
        required
        error={fieldError('name')}
      />
      <fieldset className="flex flex-col gap-2">
        <legend className="mb-1 text-sm font-medium text-slate-800">When a message arrives that</legend>
        <div className="flex flex-wrap gap-4 text-sm">
          {(
            [
              ['any', 'Any message'],
              ['keyword', 'Starts with a keyword'],
              ['pattern', 'Matches a pattern'],
            ] as const
          ).map(([value, label]) => (
            <label key={value} className="flex items-center gap-2">
              <input
                type="radio"
                name={`${idPrefix}-kind`}
                value={value}
                checked={kind === value}
                onChange={() => setKind(value)}
              />
              {label}
            </label>
          ))}
        </div>
        {kind !== 'any' && (
          <Field
            id={`${idPrefix}-condition`}
            label={kind === 'keyword' ? 'Keyword' : 'Pattern (RE2)'}
            hint={
              kind === 'keyword'
                ? 'The first word of the text, ignoring case and accents.'
                : 'Searched anywhere in the text; (?i) ignores case. Backreferences and lookaround are not supported.'
            }
            value={condition}
            onChange={(event) => setCondition(event.target.value)}
            className="font-mono"
            error={fieldError(kind === 'keyword' ? 'match.keyword' : 'match.pattern')}
          />
        )}
        <Field
          id={`${idPrefix}-prefix`}
          label="Only from numbers starting with (optional)"
          placeholder="+44"
          value={prefix}
          onChange={(event) => setPrefix(event.target.value)}
          error={fieldError('match.from_prefix')}
        />
      </fieldset>
      <fieldset className="flex flex-col gap-2">
        <legend className="mb-1 text-sm font-medium text-slate-800">Received by</legend>
        <p className="text-xs text-slate-500">None ticked: every phone.</p>
        <div className="flex flex-wrap gap-x-4 gap-y-1 text-sm">
          {groups.map((group) => (
            <label key={group.id} className="flex items-center gap-2">
              <input
                type="checkbox"
                checked={groupIds.includes(group.id)}
                onChange={(event) =>
                  setGroupIds((ids) =>
                    event.target.checked ? [...ids, group.id] : ids.filter((id) => id !== group.id),
                  )
                }
              />
              Group {group.name}
            </label>
          ))}
          {phones.map((phone) => (
            <label key={phone.id} className="flex items-center gap-2">
              <input
                type="checkbox"
                checked={phoneIds.includes(phone.id)}
                onChange={(event) =>
                  setPhoneIds((ids) =>
                    event.target.checked ? [...ids, phone.id] : ids.filter((id) => id !== phone.id),
                  )
                }
              />
              <span className="font-mono">{phone.label ?? phone.phone}</span>
            </label>
          ))}
        </div>
      </fieldset>
      <fieldset className="flex flex-col gap-3">
        <legend className="mb-1 text-sm font-medium text-slate-800">Then</legend>
        {fieldError('actions') && <p className="text-xs text-red-700">{fieldError('actions')}</p>}
        {actions.map((action, index) => {
          const value = ACTION_VALUE[action.type];
          const id = `${idPrefix}-action-${index}`;
          const error = fieldError(`actions.${index}.${value.key}`) ?? fieldError(`actions.${index}`);
          return (
            <div
              key={action.key}
              className="flex flex-col gap-2 rounded-md border border-slate-200 p-3 sm:flex-row sm:items-start"
            >
              <div className="flex flex-col gap-1">
                <label htmlFor={`${id}-type`} className="text-sm font-medium text-slate-800">
                  Action {index + 1}
                </label>
                <select
                  id={`${id}-type`}
                  className="rounded-md border border-slate-300 px-2 py-1.5 text-sm"
                  value={action.type}
                  onChange={(event) => setAction(index, { type: event.target.value as ActionType, value: '' })}
                >
                  {(Object.keys(ACTION_LABELS) as ActionType[]).map((type) => (
                    <option key={type} value={type}>
                      {ACTION_LABELS[type]}
                    </option>
                  ))}
                </select>
              </div>
              <div className="flex-1">
                {action.type === 'webhook' ? (
                  <div className="flex flex-col gap-1">
                    <label htmlFor={`${id}-value`} className="text-sm font-medium text-slate-800">
                      {value.label}
                    </label>
                    <select
                      id={`${id}-value`}
                      className="rounded-md border border-slate-300 px-2 py-1.5 text-sm"
                      value={action.value}
                      onChange={(event) => setAction(index, { value: event.target.value })}
                      aria-invalid={error ? true : undefined}
                    >
                      <option value="">Choose a webhook…</option>
                      {webhooks.map((webhook) => (
                        <option key={webhook.id} value={webhook.id}>
                          {webhook.url}
                        </option>
                      ))}
                    </select>
                    {error && <p className="text-xs text-red-700">{error}</p>}
                  </div>
                ) : (
                  <Field
                    id={`${id}-value`}
                    label={value.label}
                    placeholder={value.placeholder}
                    value={action.value}
                    onChange={(event) => setAction(index, { value: event.target.value })}
                    hint={action.type === 'reply' ? 'You can use {{from}}, {{text}} and {{phone}}.' : undefined}
                    error={error}
                  />
                )}
              </div>
              <Button
                variant="secondary"
                className="self-start sm:mt-6"
                disabled={actions.length === 1}
                onClick={() => setActions((list) => list.filter((_, i) => i !== index))}
                aria-label={`Remove action ${index + 1}`}
              >
                Remove
              </Button>
            </div>
          );
        })}
        <div>
          <Button
            variant="secondary"
            disabled={actions.length >= MAX_ACTIONS}
            onClick={() => setActions((list) => [...list, draft('reply', '')])}
          >
            Add an action
          </Button>
        </div>
      </fieldset>
      <div className="flex flex-col gap-2 text-sm">
        <label className="flex items-center gap-2">
          <input type="checkbox" checked={continues} onChange={(event) => setContinues(event.target.checked)} />
          Let later rules act on the message too
        </label>
        <label className="flex items-center gap-2">
          <input type="checkbox" checked={enabled} onChange={(event) => setEnabled(event.target.checked)} />
          Enabled
        </label>
      </div>
      {unplaced && <p className="text-sm text-red-700">{unplaced}</p>}
      <div className="flex gap-3">
        <Button type="submit" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : rule ? 'Save rule' : 'Create rule'}
        </Button>
        <Button variant="secondary" onClick={onDone}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
