'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { OptOutWire } from '@/lib/opt-outs/schemas';
import { ApiProblem, api } from '../api';
import { queryKeys } from '../query-keys';
import { Button } from '../ui/button';
import { ConfirmDialog } from '../ui/confirm';
import { Field } from '../ui/field';
import { ListView } from '../ui/list-view';
import { NameForm } from '../ui/name-form';
import { Section } from '../ui/section';
import { EmptyState, ErrorState, Loading } from '../ui/states';
import { usePagedList } from '../use-paged-list';
import { useRefresh } from '../use-refresh';

type OptOutSettings = { confirmation_reply: string | null; stop_words: string[]; start_words: string[] };

const SOURCE_LABEL: Record<OptOutWire['source'], string> = { inbound: 'Texted a stop word', manual: 'Added by hand' };

export function OptOutsPanel() {
  const list = usePagedList<OptOutWire>(queryKeys.optOuts.list(), '/api/v1/opt-outs?limit=50');
  const [removing, setRemoving] = useState<OptOutWire | null>(null);
  const refresh = useRefresh();
  const add = useMutation({
    mutationFn: (phone: string) => api('/api/v1/opt-outs', { body: { phone: phone.replace(/[\s()-]/g, '') } }),
    onSuccess: () => refresh('optOuts'),
  });
  const remove = useMutation({
    mutationFn: (phone: string) => api(`/api/v1/opt-outs/${encodeURIComponent(phone)}`, { method: 'DELETE' }),
    onSuccess: () => {
      setRemoving(null);
      return refresh('optOuts');
    },
  });
  const addError = add.error instanceof ApiProblem ? (add.error.fieldError('phone') ?? add.error.message) : undefined;

  return (
    <Section title="Opted-out numbers">
      <p className="mb-4 text-sm text-slate-600">
        A number that texts STOP (or STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT) to any of your phones is added here, and
        sends to it are refused with <code>RECIPIENT_OPTED_OUT</code> at no charge. START, UNSTOP or YES removes it.
      </p>
      <NameForm
        id="opt-out-phone"
        label="Opt a number out (E.164, e.g. +14155550123)"
        submitLabel="Add"
        pending={add.isPending}
        error={addError}
        onSubmit={(phone) => add.mutateAsync(phone)}
      />
      <ListView list={list} empty={<EmptyState title="No opted-out numbers">Nobody has texted STOP yet.</EmptyState>}>
        {(items) => (
          <table className="w-full text-left text-sm">
            <thead className="text-slate-500">
              <tr>
                <th className="py-2">Number</th>
                <th className="hidden sm:table-cell">How</th>
                <th>Since</th>
                <th>
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {items.map((row) => (
                <tr key={row.phone} className="border-t border-slate-100">
                  <td className="py-2">
                    <span className="font-mono">{row.phone}</span>
                    <span className="block text-xs text-slate-500 sm:hidden">{SOURCE_LABEL[row.source]}</span>
                  </td>
                  <td className="hidden sm:table-cell">{SOURCE_LABEL[row.source]}</td>
                  <td>
                    <time dateTime={row.created_at}>{new Date(row.created_at).toLocaleDateString()}</time>
                  </td>
                  <td className="text-right">
                    <Button
                      variant="secondary"
                      onClick={() => setRemoving(row)}
                      aria-label={`Remove opt-out ${row.phone}`}
                    >
                      Remove
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </ListView>
      <ConfirmDialog
        open={removing !== null}
        title={`Text ${removing?.phone ?? ''} again?`}
        confirmLabel="Remove opt-out"
        pending={remove.isPending}
        onConfirm={() => removing && remove.mutate(removing.phone)}
        onCancel={() => setRemoving(null)}
      >
        Only do this if the person asked to hear from you again: sends to the number will be allowed.
        {remove.error && <ErrorState error={remove.error} />}
      </ConfirmDialog>
    </Section>
  );
}

export function OptOutSettingsPanel() {
  const settings = useQuery({
    queryKey: queryKeys.optOutSettings.root,
    queryFn: () => api<OptOutSettings>('/api/v1/opt-outs/settings'),
  });
  return (
    <Section title="Confirmation reply">
      {settings.isPending ? (
        <Loading />
      ) : settings.error ? (
        <ErrorState error={settings.error} onRetry={() => settings.refetch()} />
      ) : (
        <ReplyForm initial={settings.data.confirmation_reply ?? ''} />
      )}
    </Section>
  );
}

function ReplyForm({ initial }: { initial: string }) {
  const [reply, setReply] = useState(initial);
  const refresh = useRefresh();
  const save = useMutation({
    mutationFn: (value: string | null) =>
      api<OptOutSettings>('/api/v1/opt-outs/settings', { method: 'PATCH', body: { confirmation_reply: value } }),
    onSuccess: () => refresh('optOutSettings'),
  });
  const error =
    save.error instanceof ApiProblem ? (save.error.fieldError('confirmation_reply') ?? save.error.message) : undefined;
  return (
    <form
      className="flex flex-col gap-3"
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate(reply.trim() === '' ? null : reply);
      }}
    >
      <Field
        id="opt-out-reply"
        label="Text sent back when a number opts out"
        hint="Off when empty. Sent from the phone that was texted, and charged one credit like any message."
        placeholder="You have been unsubscribed. Reply START to subscribe again."
        value={reply}
        onChange={(event) => setReply(event.target.value)}
        maxLength={1600}
        error={error}
      />
      <div className="flex items-center gap-3">
        <Button type="submit" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save'}
        </Button>
        {save.isSuccess && (
          <output className="text-sm text-green-800">
            {save.data.confirmation_reply ? 'Saved: the reply is on.' : 'Saved: no reply is sent.'}
          </output>
        )}
      </div>
    </form>
  );
}
