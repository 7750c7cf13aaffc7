'use client';

import { useMutation } from '@tanstack/react-query';
import Papa from 'papaparse';
import { useId, useMemo, useState } from 'react';
import { countSegments } from '@/lib/messages/segments';
import { ApiProblem, api } from '../api';
import { useGroups, usePhones } from '../lists';
import { Button } from '../ui/button';
import { Section } from '../ui/section';
import { ErrorState, Loading } from '../ui/states';
import { useRefresh } from '../use-refresh';
import { guessNumberColumn, parsePasted, type RecipientRow, rowsFromCsv } from './recipients';

type Rejected = { index: number; to: string; code: string; detail: string; field?: string };
type DryRun = {
  messages: Array<{ to: string; from: string; content: string; encoding: string; segments: number }>;
  rejected: Rejected[];
  groups: Array<{ group_id: number; name: string; credits: number; balance: number; balance_after: number }>;
  sufficient: boolean;
};
type Created = { id: string; count: number; rejected: Rejected[] };
type Invalid = { line: number; to: string; reason: string };

const MAX_RECIPIENTS = 1000;

/** `phone:+1…` or `group:7`, the select's values, as the API's from / from_group. */
function senderOf(value: string): { from?: string; from_group?: number } {
  const [kind, rest = ''] = value.split(':');
  return kind === 'group' ? { from_group: Number(rest) } : { from: rest };
}

export function BulkCompose({ onSent }: { onSent: (bulkId: string) => void }) {
  const ids = useId();
  const phones = usePhones();
  const groups = useGroups();
  const [sender, setSender] = useState('');
  const [mode, setMode] = useState<'paste' | 'csv'>('paste');
  const [pasted, setPasted] = useState('');
  const [csv, setCsv] = useState<{ name: string; table: string[][] } | null>(null);
  const [numberColumn, setNumberColumn] = useState(0);
  const [content, setContent] = useState('');
  const [invalid, setInvalid] = useState<Invalid[]>([]);
  const [preview, setPreview] = useState<{ rows: RecipientRow[]; result: DryRun } | null>(null);
  const refresh = useRefresh();

  const rows = useMemo(
    () => (mode === 'paste' ? parsePasted(pasted) : csv ? rowsFromCsv(csv.table, numberColumn) : []),
    [mode, pasted, csv, numberColumn],
  );
  const variables = useMemo(() => Object.keys(rows[0]?.vars ?? {}), [rows]);
  const counted = countSegments(content);
  const onlinePhones = [...(phones.data ?? [])].sort(
    (a, b) => Number(b.status === 'online') - Number(a.status === 'online'),
  );
  const chosen = sender || (onlinePhones[0] ? `phone:${onlinePhones[0].phone}` : '');

  const body = (recipients: RecipientRow[], dryRun: boolean) => ({
    ...senderOf(chosen),
    content,
    recipients: recipients.map((row) => (Object.keys(row.vars).length > 0 ? { to: row.to, vars: row.vars } : row.to)),
    ...(dryRun ? { dry_run: true } : {}),
  });

  /** A dry run; numbers the API refuses are listed as invalid rows and left out, then it runs again. */
  const check = useMutation({
    mutationFn: async () => {
      let candidates = rows;
      const refused: Invalid[] = [];
      for (let attempt = 0; attempt < 2; attempt++) {
        try {
          const result = await api<DryRun>('/api/v1/bulk-messages', { body: body(candidates, true) });
          return { rows: candidates, result, refused };
        } catch (error) {
          const badRows = error instanceof ApiProblem ? recipientErrors(error) : undefined;
          if (!badRows || badRows.size === 0) throw error;
          candidates.forEach((row, index) => {
            const reason = badRows.get(index);
            if (reason) refused.push({ line: row.line, to: row.to, reason });
          });
          candidates = candidates.filter((_, index) => !badRows.has(index));
          if (candidates.length === 0) throw new Error('No valid number to send to.');
        }
      }
      throw new Error('The recipients could not be checked.');
    },
    onSuccess: ({ rows: checked, result, refused }) => {
      setInvalid(refused);
      setPreview({ rows: checked, result });
    },
  });
  const send = useMutation({
    mutationFn: () => api<Created>('/api/v1/bulk-messages', { body: body(preview?.rows ?? [], false) }),
    onSuccess: async (created) => {
      await refresh('messages', 'balance', 'ledger', 'groups');
      onSent(created.id);
    },
  });

  const tooMany = rows.length > MAX_RECIPIENTS;
  const edited = () => setPreview(null);

  return (
    <Section title="Bulk send">
      <form
        className="flex flex-col gap-4"
        onSubmit={(event) => {
          event.preventDefault();
          check.mutate();
        }}
      >
        <label className="flex flex-col gap-1 text-sm font-medium text-slate-800" htmlFor={`${ids}-from`}>
          Send from
          {phones.isPending || groups.isPending ? (
            <Loading />
          ) : (
            <select
              id={`${ids}-from`}
              className="rounded-md border border-slate-300 px-2 py-1.5 font-normal"
              value={chosen}
              onChange={(event) => {
                setSender(event.target.value);
                edited();
              }}
            >
              <optgroup label="One phone">
                {onlinePhones.map((phone) => (
                  <option key={phone.id} value={`phone:${phone.phone}`}>
                    {phone.label ? `${phone.label} (${phone.phone})` : phone.phone} · {phone.status}
                  </option>
                ))}
              </optgroup>
              <optgroup label="A group: spread over its online phones">
                {(groups.data ?? []).map((group) => (
                  <option key={group.id} value={`group:${group.id}`}>
                    {group.name} · {group.balance} credits
                  </option>
                ))}
              </optgroup>
            </select>
          )}
        </label>

        <fieldset className="flex flex-col gap-2">
          <legend className="text-sm font-medium text-slate-800">Recipients</legend>
          <div className="flex gap-4 text-sm">
            <label className="flex items-center gap-1">
              <input type="radio" name={`${ids}-mode`} checked={mode === 'paste'} onChange={() => setMode('paste')} />
              Paste numbers
            </label>
            <label className="flex items-center gap-1">
              <input type="radio" name={`${ids}-mode`} checked={mode === 'csv'} onChange={() => setMode('csv')} />
              Upload a CSV
            </label>
          </div>
          {mode === 'paste' ? (
            <label className="flex flex-col gap-1 text-sm" htmlFor={`${ids}-numbers`}>
              Numbers in E.164 (+14155550100), one per line or separated by commas
              <textarea
                id={`${ids}-numbers`}
                rows={5}
                className="rounded-md border border-slate-300 px-3 py-1.5 font-mono text-sm"
                value={pasted}
                onChange={(event) => {
                  setPasted(event.target.value);
                  edited();
                }}
              />
            </label>
          ) : (
            <div className="flex flex-col gap-2 text-sm">
              <label className="flex flex-col gap-1" htmlFor={`${ids}-csv`}>
                CSV file with a header row: one column of numbers, the others become {'{{variables}}'}
                <input
                  id={`${ids}-csv`}
                  type="file"
                  accept=".csv,text/csv"
                  className="text-sm"
                  onChange={async (event) => {
                    const file = event.target.files?.[0];
                    if (!file) return;
                    const parsed = Papa.parse<string[]>(await file.text(), { skipEmptyLines: true });
                    setCsv({ name: file.name, table: parsed.data });
                    setNumberColumn(guessNumberColumn(parsed.data[0] ?? []));
                    edited();
                  }}
                />
              </label>
              {csv && csv.table.length > 0 && (
                <label className="flex items-center gap-2" htmlFor={`${ids}-column`}>
                  Number column
                  <select
                    id={`${ids}-column`}
                    className="rounded-md border border-slate-300 px-2 py-1"
                    value={numberColumn}
                    onChange={(event) => {
                      setNumberColumn(Number(event.target.value));
                      edited();
                    }}
                  >
                    {(csv.table[0] ?? []).map((header, index) => (
                      // biome-ignore lint/suspicious/noArrayIndexKey: a CSV's columns are its positions; headers may repeat.
                      <option key={index} value={index}>
                        {header || `Column ${index + 1}`}
                      </option>
                    ))}
                  </select>
                </label>
              )}
            </div>
          )}
          <p className="text-xs text-slate-600" aria-live="polite">
            {rows.length} recipient(s)
            {variables.length > 0 && ` · variables: ${variables.map((name) => `{{${name}}}`).join(', ')}`}
            {tooMany && ` · at most ${MAX_RECIPIENTS} per bulk`}
          </p>
        </fieldset>

        <div className="flex flex-col gap-1">
          <label className="text-sm font-medium text-slate-800" htmlFor={`${ids}-content`}>
            Message
          </label>
          <textarea
            id={`${ids}-content`}
            rows={3}
            maxLength={1600}
            required
            aria-describedby={`${ids}-count`}
            className="rounded-md border border-slate-300 px-3 py-1.5 text-sm"
            value={content}
            onChange={(event) => {
              setContent(event.target.value);
              edited();
            }}
          />
          <span id={`${ids}-count`} className="text-xs text-slate-600" aria-live="polite">
            {content.length} characters · {counted.encoding} · {content ? counted.segments : 0} segment(s) per message
            before variables · 1 credit per message
          </span>
        </div>

        <div>
          <Button type="submit" disabled={check.isPending || rows.length === 0 || tooMany || !content || !chosen}>
            {check.isPending ? 'Checking…' : 'Preview cost'}
          </Button>
        </div>
      </form>
      {check.error && <ErrorState error={check.error} />}
      {invalid.length > 0 && (
        <section className="mt-4" aria-label="Invalid rows">
          <h3 className="text-sm font-semibold text-red-800">{invalid.length} invalid row(s), left out</h3>
          <ul className="mt-1 list-inside list-disc text-sm text-slate-700">
            {invalid.map((row) => (
              <li key={`${row.line}-${row.to}`}>
                Line {row.line}: <span className="font-mono">{row.to || '(empty)'}</span> — {row.reason}
              </li>
            ))}
          </ul>
        </section>
      )}
      {preview && (
        <PreviewCard
          preview={preview.result}
          rows={preview.rows}
          pending={send.isPending}
          error={send.error}
          onSend={() => send.mutate()}
        />
      )}
    </Section>
  );
}

/** `recipients.3` errors of a 400, by recipient index. */
function recipientErrors(problem: ApiProblem): Map<number, string> | undefined {
  if (problem.status !== 400) return undefined;
  const found = new Map<number, string>();
  for (const error of problem.errors) {
    const match = /^recipients\.(\d+)(?:\.to)?$/.exec(error.path);
    if (!match) return undefined;
    found.set(Number(match[1]), error.message);
  }
  return found;
}

function PreviewCard({
  preview,
  rows,
  pending,
  error,
  onSend,
}: {
  preview: DryRun;
  rows: RecipientRow[];
  pending: boolean;
  error: unknown;
  onSend: () => void;
}) {
  const group = preview.groups[0];
  const count = preview.messages.length;
  return (
    <section className="mt-6 rounded-md border border-slate-200 p-4" aria-label="Preview">
      <h3 className="font-semibold">Preview</h3>
      <p className="mt-1 text-sm" data-testid="bulk-cost">
        {count} message(s), {count} credit(s) from <strong>{group?.name}</strong>: {group?.balance} →{' '}
        <span className={preview.sufficient ? '' : 'font-semibold text-red-800'}>{group?.balance_after}</span>
        {!preview.sufficient && ' (not enough credits: transfer some first)'}
      </p>
      {preview.rejected.length > 0 && (
        <div className="mt-3">
          <h4 className="text-sm font-semibold text-amber-900">
            {preview.rejected.length} recipient(s) will be skipped
          </h4>
          <ul className="list-inside list-disc text-sm text-slate-700">
            {preview.rejected.map((row) => (
              <li key={`${row.index}-${row.to}`}>
                Line {rows[row.index]?.line ?? row.index + 1}: <span className="font-mono">{row.to}</span> —{' '}
                {row.detail}
              </li>
            ))}
          </ul>
        </div>
      )}
      {preview.messages.length > 0 && (
        <ul className="mt-3 flex flex-col gap-1 text-sm">
          {preview.messages.slice(0, 3).map((message) => (
            <li key={message.to} className="break-words">
              <span className="font-mono">{message.to}</span>: “{message.content}” · {message.encoding},{' '}
              {message.segments} segment(s)
            </li>
          ))}
          {preview.messages.length > 3 && <li className="text-slate-500">…and {preview.messages.length - 3} more</li>}
        </ul>
      )}
      {error ? <ErrorState error={error} /> : null}
      <div className="mt-4">
        <Button onClick={onSend} disabled={pending || count === 0 || !preview.sufficient}>
          {pending ? 'Sending…' : `Send ${count} message(s)`}
        </Button>
      </div>
    </section>
  );
}
