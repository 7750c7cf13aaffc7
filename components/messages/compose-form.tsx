'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { ApiProblem, api } from '@/components/api';
import { ContactSuggestions } from '@/components/contacts/suggestions';
import { usePassphrase } from '@/components/crypto/passphrase';
import { encryptSmsGate } from '@/components/crypto/smsgate-encryption';
import { usePhones } from '@/components/lists';
import { queryKeys } from '@/components/query-keys';
import { Button } from '@/components/ui/button';
import { Field } from '@/components/ui/field';
import { ErrorState } from '@/components/ui/states';
import { useRefresh } from '@/components/use-refresh';
import type { Phone } from '@/components/wire';
import { countSegments } from '@/lib/messages/segments';
import { smartEncode } from '@/lib/messages/smart-encoding';
import type { SendingSettings } from '@/lib/settings/schemas';

const STATUS_ORDER: Record<Phone['status'], number> = { online: 0, unknown: 1, offline: 2 };

function phoneName(phone: Phone): string {
  const name = phone.label ? `${phone.label} (${phone.phone})` : phone.phone;
  return phone.status === 'online' ? name : `${name} — ${phone.status}`;
}

/**
 * Compose one message: From is one of the account's phones (online ones first); the segment count and
 * encoding follow the text as it is typed, with the one credit the message costs. Smart encoding (on
 * when the account's default is) sends GSM-7 look-alikes as GSM-7: both counts are shown.
 */
/** `encrypt` and its setter: the panel shows the passphrase field while encryption is chosen. */
export function ComposeForm({ encrypt, setEncrypt }: { encrypt: boolean; setEncrypt: (encrypt: boolean) => void }) {
  const refresh = useRefresh();
  const ids = useId();
  const phones = usePhones();
  const sorted = [...(phones.data ?? [])].sort((a, b) => STATUS_ORDER[a.status] - STATUS_ORDER[b.status]);
  const [form, setForm] = useState({ from: '', to: '', content: '' });
  const sending = useQuery({
    queryKey: queryKeys.sendingSettings.root,
    queryFn: () => api<SendingSettings>('/api/v1/settings/sending'),
  });
  const [smartChoice, setSmartChoice] = useState<boolean | undefined>(undefined);
  const smart = smartChoice ?? sending.data?.smart_encoding ?? false;
  const { passphrase } = usePassphrase();
  const encrypting = encrypt && passphrase !== '';
  const from = form.from || sorted[0]?.phone || '';
  const send = useMutation({
    meta: { success: encrypting ? 'Encrypted message queued' : 'Message queued' },
    // Encrypted here, in the browser: the server receives only the ciphertext of the number and the text.
    mutationFn: async () =>
      api('/api/v1/messages', {
        body: encrypting
          ? {
              from,
              to: await encryptSmsGate(form.to.trim(), passphrase),
              content: await encryptSmsGate(form.content, passphrase),
              encrypted: true,
            }
          : { ...form, from, smart_encoding: smart },
      }),
    onSuccess: () => {
      setForm({ ...form, to: '', content: '' });
      return refresh('messages', 'balance', 'ledger', 'groups', 'phones');
    },
  });
  const problem = send.error instanceof ApiProblem ? send.error : undefined;
  const typed = countSegments(form.content);
  const smartText = smart && !encrypting ? smartEncode(form.content) : form.content;
  const count = countSegments(smartText);
  const fromError = problem?.fieldError('from');

  return (
    <form
      aria-label="Compose a message"
      className="mb-6 space-y-3"
      onSubmit={(event) => {
        event.preventDefault();
        send.mutate();
      }}
    >
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
        <div className="flex flex-col gap-1">
          <label htmlFor={`${ids}-from`} className="text-sm font-medium text-slate-800">
            From (your phone)
          </label>
          <select
            id={`${ids}-from`}
            required
            value={from}
            onChange={(e) => setForm({ ...form, from: e.target.value })}
            aria-invalid={fromError ? true : undefined}
            aria-describedby={fromError ? `${ids}-from-error` : undefined}
            className="min-w-0 rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm"
          >
            {sorted.length === 0 && <option value="">{phones.isPending ? 'Loading phones…' : 'No phones yet'}</option>}
            {sorted.map((phone) => (
              <option key={phone.id} value={phone.phone}>
                {phoneName(phone)}
              </option>
            ))}
          </select>
          {fromError && (
            <p id={`${ids}-from-error`} className="text-xs text-red-700">
              {fromError}
            </p>
          )}
        </div>
        <Field
          id={`${ids}-to`}
          label="To"
          required
          inputMode="tel"
          placeholder="+14155550123"
          value={form.to}
          onChange={(e) => setForm({ ...form, to: e.target.value })}
          error={problem?.fieldError('to')}
          list={encrypting ? undefined : `${ids}-contacts`}
          autoComplete="off"
        />
        {!encrypting && <ContactSuggestions id={`${ids}-contacts`} text={form.to} />}
      </div>
      <div className="flex flex-col gap-1">
        <label htmlFor={`${ids}-content`} className="text-sm font-medium text-slate-800">
          Message
        </label>
        <textarea
          id={`${ids}-content`}
          required
          maxLength={1600}
          rows={3}
          value={form.content}
          onChange={(e) => setForm({ ...form, content: e.target.value })}
          aria-describedby={`${ids}-count`}
          aria-invalid={problem?.fieldError('content') ? true : undefined}
          className="rounded-md border border-slate-300 px-3 py-1.5 text-sm"
        />
        <p id={`${ids}-count`} className="text-xs text-slate-600" data-testid="segment-count">
          {count.units} {count.encoding === 'GSM-7' ? 'characters' : 'UTF-16 units'} · {count.encoding} ·{' '}
          {count.segments} segment{count.segments === 1 ? '' : 's'} · 1 credit
        </p>
        {smartText !== form.content && (
          <p className="text-xs text-slate-600" data-testid="smart-count">
            As typed: {typed.encoding} · {typed.segments} segment{typed.segments === 1 ? '' : 's'}. Smart encoding sends
            “{smartText.length > 60 ? `${smartText.slice(0, 60)}…` : smartText}” as {count.encoding} · {count.segments}{' '}
            segment{count.segments === 1 ? '' : 's'}.
          </p>
        )}
        <label className="flex items-center gap-2 text-sm text-slate-800">
          <input type="checkbox" checked={smart} onChange={(event) => setSmartChoice(event.target.checked)} />
          Smart encoding: replace curly quotes, long dashes, odd spaces and ellipses by their GSM-7 look-alikes
        </label>
        {problem?.fieldError('content') && <p className="text-xs text-red-700">{problem.fieldError('content')}</p>}
      </div>
      <div className="flex flex-col gap-1">
        <label className="flex items-center gap-2 text-sm text-slate-800">
          <input
            type="checkbox"
            checked={encrypt}
            onChange={(event) => setEncrypt(event.target.checked)}
            aria-describedby={`${ids}-encrypt-hint`}
          />
          Encrypt for the SMSGate app
        </label>
        <p id={`${ids}-encrypt-hint`} className="text-xs text-slate-600">
          {encrypt && !passphrase
            ? 'Enter the passphrase above first: the message is encrypted with it.'
            : 'The number and the text are encrypted in this browser with the passphrase above; only a phone paired with the SMSGate app, holding the same passphrase, can send it.'}
        </p>
      </div>
      <Button type="submit" disabled={send.isPending || !from || (encrypt && !passphrase)}>
        {send.isPending ? 'Sending…' : 'Send'}
      </Button>
      {problem && problem.errors.length === 0 && <ErrorState error={problem} />}
    </form>
  );
}
