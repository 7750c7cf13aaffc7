'use client';

import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiProblem, api } from '../api';
import { useRefresh } from '../use-refresh';
import type { RecipientRow } from './recipients';

type Rejected = { index: number; to: string; code: string; detail: string; field?: string };
export type DryRun = {
  messages: Array<{ to: string; from: string; content: string; encoding: string; segments: number }>;
  rejected: Rejected[];
  groups: Array<{ group_id: number; name: string; credits: number; balance: number; balance_after: number }>;
  sufficient: boolean;
};
type Created = { id: string; count: number; rejected: Rejected[] };
export type Invalid = { line: number; to: string; reason: string };

/** `phone:+1…` or `group:7`, the select's values, as the API's from / from_group. */
function senderOf(value: string): { from?: string; from_group?: number } {
  const [kind, rest = ''] = value.split(':');
  return kind === 'group' ? { from_group: Number(rest) } : { from: rest };
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

/** The dry run (`check`) and the send of a bulk, with the preview and the rows the API refused. */
export function useBulkSend({
  rows,
  sender,
  content,
  onSent,
}: {
  rows: RecipientRow[];
  sender: string;
  content: string;
  onSent: (bulkId: string) => void;
}) {
  const [invalid, setInvalid] = useState<Invalid[]>([]);
  const [preview, setPreview] = useState<{ rows: RecipientRow[]; result: DryRun } | null>(null);
  const refresh = useRefresh();

  const body = (recipients: RecipientRow[], dryRun: boolean) => ({
    ...senderOf(sender),
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
      await refresh('messages', 'balance', 'ledger', 'groups', 'phones');
      onSent(created.id);
    },
  });

  return { check, send, invalid, preview, edited: () => setPreview(null) };
}
