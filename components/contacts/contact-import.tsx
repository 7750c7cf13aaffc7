'use client';

import { useMutation } from '@tanstack/react-query';
import { useId, useState } from 'react';
import type { ContactImportPreview, ContactImportResult } from '@/components/wire';
import { ApiProblem } from '../api';
import { Button } from '../ui/button';
import { Section } from '../ui/section';
import { ErrorState } from '../ui/states';
import { useRefresh } from '../use-refresh';

/** POST /api/v1/contacts/import with the file as text/csv; `dryRun` writes nothing. */
async function importCsv<T>(file: File, dryRun: boolean): Promise<T> {
  const res = await fetch(`/api/v1/contacts/import${dryRun ? '?dry_run=true' : ''}`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'text/csv' },
    body: file,
  });
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw new ApiProblem(res.status, body);
  return body as T;
}

/** A CSV file checked first (dry run: its invalid rows shown), then imported once confirmed. */
export function ContactImport() {
  const ids = useId();
  const [file, setFile] = useState<File | null>(null);
  const refresh = useRefresh();
  const preview = useMutation({ mutationFn: (chosen: File) => importCsv<ContactImportPreview>(chosen, true) });
  const run = useMutation({
    mutationFn: (chosen: File) => importCsv<ContactImportResult>(chosen, false),
    onSuccess: () => refresh('contacts', 'messages'),
  });
  const checked = preview.data;
  return (
    <Section title="Import contacts">
      <p className="mb-3 text-sm text-slate-600">
        A CSV file with a header row: the numbers (E.164, e.g. +14155550123) in a column named phone or number, and
        optionally name, tags (separated by ; or |) and notes. Up to 50,000 rows; numbers already saved are updated.
      </p>
      <div className="flex flex-col gap-1">
        <label htmlFor={`${ids}-file`} className="text-sm font-medium text-slate-800">
          CSV file
        </label>
        <input
          id={`${ids}-file`}
          type="file"
          accept=".csv,text/csv"
          className="text-sm"
          onChange={(event) => {
            const chosen = event.target.files?.[0] ?? null;
            setFile(chosen);
            run.reset();
            preview.reset();
            if (chosen) preview.mutate(chosen);
          }}
        />
      </div>
      {preview.isPending && (
        <p role="status" className="mt-3 text-sm text-slate-600">
          Checking the file…
        </p>
      )}
      {preview.error && <ErrorState error={preview.error} />}
      {checked && !run.data && (
        <div className="mt-4 flex flex-col gap-3" aria-live="polite">
          <p className="text-sm" data-testid="import-preview">
            {checked.valid} valid row{checked.valid === 1 ? '' : 's'}: {checked.would_create} new,{' '}
            {checked.would_update} to update · {checked.invalid_count} invalid
          </p>
          {checked.invalid.length > 0 && <InvalidRows rows={checked.invalid} total={checked.invalid_count} />}
          <div>
            <Button disabled={!file || checked.valid === 0 || run.isPending} onClick={() => file && run.mutate(file)}>
              {run.isPending ? 'Importing…' : `Import ${checked.valid} contact${checked.valid === 1 ? '' : 's'}`}
            </Button>
          </div>
        </div>
      )}
      {run.error && <ErrorState error={run.error} />}
      {run.data && (
        <output className="mt-4 block text-sm text-green-800">
          Imported: {run.data.created} created, {run.data.updated} updated
          {run.data.invalid_count > 0 ? `, ${run.data.invalid_count} rows skipped` : ''}.
        </output>
      )}
    </Section>
  );
}

function InvalidRows({ rows, total }: { rows: ContactImportPreview['invalid']; total: number }) {
  return (
    <div>
      <h3 className="text-sm font-medium">
        Rows that will be skipped{total > rows.length ? ` (first ${rows.length} of ${total})` : ''}
      </h3>
      <table className="mt-1 w-full text-left text-sm">
        <thead className="text-slate-500">
          <tr>
            <th className="py-1">Row</th>
            <th>Number</th>
            <th>Why</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.row} className="border-t border-slate-100">
              <td className="py-1">{row.row}</td>
              <td className="font-mono break-all">{row.number ?? ''}</td>
              <td>{row.reason}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
