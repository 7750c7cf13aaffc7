'use client';

import Papa from 'papaparse';
import { useMemo, useState } from 'react';
import { guessNumberColumn } from '@/lib/csv-columns';
import { parsePasted, rowsFromCsv } from './recipients';

export const MAX_RECIPIENTS = 1000;

type Csv = { name: string; table: string[][] };

/** The recipients as typed or uploaded, and the rows (with variables) they make. */
export function useRecipients() {
  const [mode, setMode] = useState<'paste' | 'csv'>('paste');
  const [pasted, setPasted] = useState('');
  const [csv, setCsv] = useState<Csv | null>(null);
  const [numberColumn, setNumberColumn] = useState(0);
  const rows = useMemo(
    () => (mode === 'paste' ? parsePasted(pasted) : csv ? rowsFromCsv(csv.table, numberColumn) : []),
    [mode, pasted, csv, numberColumn],
  );
  const variables = useMemo(() => Object.keys(rows[0]?.vars ?? {}), [rows]);
  return { mode, setMode, pasted, setPasted, csv, setCsv, numberColumn, setNumberColumn, rows, variables };
}

type Recipients = ReturnType<typeof useRecipients>;

/** "Recipients": pasted numbers or a CSV file, and how many rows that makes. */
export function RecipientsFieldset({
  ids,
  recipients,
  onEdit,
}: {
  ids: string;
  recipients: Recipients;
  onEdit: () => void;
}) {
  const { mode, setMode, pasted, setPasted, rows, variables } = recipients;
  return (
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
              onEdit();
            }}
          />
        </label>
      ) : (
        <CsvInput ids={ids} recipients={recipients} onEdit={onEdit} />
      )}
      <p className="text-xs text-slate-600" aria-live="polite">
        {rows.length} recipient(s)
        {variables.length > 0 && ` · variables: ${variables.map((name) => `{{${name}}}`).join(', ')}`}
        {rows.length > MAX_RECIPIENTS && ` · at most ${MAX_RECIPIENTS} per bulk`}
      </p>
    </fieldset>
  );
}

/** The CSV file and, once read, which of its columns holds the numbers. */
function CsvInput({ ids, recipients, onEdit }: { ids: string; recipients: Recipients; onEdit: () => void }) {
  const { csv, setCsv, numberColumn, setNumberColumn } = recipients;
  return (
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
            onEdit();
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
              onEdit();
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
  );
}
