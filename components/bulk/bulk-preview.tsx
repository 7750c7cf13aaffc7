'use client';

import { Button } from '../ui/button';
import { ErrorState } from '../ui/states';
import type { RecipientRow } from './recipients';
import type { DryRun, Invalid } from './use-bulk-send';

/** The rows the API refused during the dry run, left out of the bulk. */
export function InvalidRows({ invalid }: { invalid: Invalid[] }) {
  return (
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
  );
}

export function PreviewCard({
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
