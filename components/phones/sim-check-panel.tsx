'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { queryKeys } from '@/components/query-keys';
import type { Phone, PhoneCore } from '@/components/wire';
import { ApiProblem, api } from '../api';
import { Button } from '../ui/button';
import { Field } from '../ui/field';
import { Section } from '../ui/section';
import { ErrorState } from '../ui/states';
import { LIVE_INTERVAL_MS, usePhone } from './queries';

/** Answers about the typed code itself, shown at the field rather than above the form. */
const CODE_PROBLEMS = new Set(['INVALID_CODE', 'CODE_EXPIRED']);

function codeError(error: unknown): string | undefined {
  if (!(error instanceof ApiProblem)) return undefined;
  return error.fieldError('code') ?? (CODE_PROBLEMS.has(error.code) ? error.message : undefined);
}

/** Shown while the phone's SIM check is under way: it waits for the check SMS, or takes its code typed. */
export function SimCheckPanel({ phone }: { phone: Phone }) {
  const fieldId = useId();
  const queryClient = useQueryClient();
  const [code, setCode] = useState('');
  const [resentAt, setResentAt] = useState<Date | null>(null);
  // The check SMS may arrive at any moment: keep the phone fresh while the check is pending.
  usePhone(phone.id, LIVE_INTERVAL_MS);

  const showPhone = (updated: PhoneCore) => {
    queryClient.setQueryData(queryKeys.phones.one(phone.id), (old: Phone | undefined) =>
      old ? { ...old, ...updated } : old,
    );
    return queryClient.invalidateQueries({ queryKey: queryKeys.phones.root });
  };
  const verify = useMutation({
    mutationFn: () => api<PhoneCore>(`/api/v1/phones/${phone.id}/sim-check`, { body: { code: code.trim() } }),
    onSuccess: showPhone,
    onError: (error) => {
      // No check pending any more (verified by the SMS meanwhile, or the device was revoked): show the phone as it is.
      if (error instanceof ApiProblem && error.status === 409) {
        return queryClient.invalidateQueries({ queryKey: queryKeys.phones.one(phone.id) });
      }
    },
  });
  const resend = useMutation({
    mutationFn: () => api<PhoneCore>(`/api/v1/phones/${phone.id}/sim-check/resend`, { method: 'POST' }),
    onSuccess: (updated) => {
      setResentAt(new Date());
      verify.reset();
      return showPhone(updated);
    },
  });
  const fieldError = codeError(verify.error);

  if (!phone.device_connected) {
    return (
      <Section title="SIM check">
        <p className="text-sm text-slate-700">
          The SIM check of <strong>{phone.phone}</strong> is waiting, but no device is connected. Pair the app again
          under “Connect an Android phone” to start a new check.
        </p>
      </Section>
    );
  }

  return (
    <Section title="SIM check">
      <div className="space-y-3 text-sm text-slate-700">
        <p>
          To prove its SIM is <strong>{phone.phone}</strong>, a 6-digit code is texted to it: from the server’s
          verification sender or another verified phone of your account when there is one, else by the phone to its own
          number. This page turns to <em>SIM verified</em> as soon as that text arrives, usually within a minute. Until
          then, this phone sends nothing else (API sends from it answer 403).
        </p>
        <p>
          Some carriers don’t deliver a text a phone sends to itself. If the phone shows the text “Simgate SIM check: …”
          (in its sent or received messages) but this page doesn’t change, type its code here.
        </p>
      </div>
      <form
        className="mt-4 flex flex-wrap items-start gap-3"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          verify.mutate();
        }}
      >
        <div className="w-64 max-w-full">
          <Field
            id={fieldId}
            label="Code from the SIM-check text"
            inputMode="numeric"
            autoComplete="one-time-code"
            maxLength={6}
            required
            value={code}
            onChange={(e) => setCode(e.target.value)}
            error={fieldError}
          />
        </div>
        <Button type="submit" className="mt-6" disabled={verify.isPending}>
          {verify.isPending ? 'Checking…' : 'Verify SIM'}
        </Button>
      </form>
      {verify.error && !fieldError && (
        <div className="mt-3">
          <ErrorState error={verify.error} />
        </div>
      )}
      <div className="mt-6 border-t border-slate-100 pt-4">
        <p className="text-sm text-slate-700">No text on the phone after a few minutes?</p>
        <Button variant="secondary" className="mt-2" onClick={() => resend.mutate()} disabled={resend.isPending}>
          {resend.isPending ? 'Sending…' : 'Send the check again'}
        </Button>
        <p role="status" className="mt-2 text-sm text-slate-700">
          {resentAt &&
            `Sent again at ${resentAt.toLocaleTimeString()} with a new code: use the code of the newest SIM-check text.`}
        </p>
        {resend.error && <ErrorState error={resend.error} />}
      </div>
    </Section>
  );
}
