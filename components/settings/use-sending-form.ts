'use client';

import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import type { ACCOUNT_ONLY_SENDING, SendingSettings } from '@/lib/settings/schemas';
import { ApiProblem, api } from '../api';
import { useRefresh } from '../use-refresh';

export type Group = { id: number; name: string; is_default: boolean; sending: Partial<SendingSettings> };
/** The settings a group may override (the others are the account's alone). */
export type Field = Exclude<keyof SendingSettings, (typeof ACCOUNT_ONLY_SENDING)[number]>;
export type Window = NonNullable<SendingSettings['send_window']>;

const DEFAULT_WINDOW: Window = {
  time_zone: typeof Intl === 'undefined' ? 'UTC' : Intl.DateTimeFormat().resolvedOptions().timeZone,
  days: ['mon', 'tue', 'wed', 'thu', 'fri'],
  start: '08:00',
  end: '21:00',
};

/**
 * The sending settings of the account, or of one group (each field may inherit the account's), as
 * form state, and the save that PATCHes the account or the group.
 */
export function useSendingForm(account: SendingSettings, group?: Group) {
  const refresh = useRefresh();
  const initial = { ...account, ...(group?.sending ?? {}) } as SendingSettings;
  const [inherit, setInherit] = useState<Record<Field, boolean>>({
    send_window: group ? !('send_window' in group.sending) : false,
    max_attempts: group ? !('max_attempts' in group.sending) : false,
    allowed_countries: group ? !('allowed_countries' in group.sending) : false,
  });
  const [windowOn, setWindowOn] = useState(initial.send_window !== null);
  const [window, setWindow] = useState<Window>(initial.send_window ?? DEFAULT_WINDOW);
  const [attempts, setAttempts] = useState(initial.max_attempts);
  const [countriesOn, setCountriesOn] = useState(initial.allowed_countries !== null);
  const [countries, setCountries] = useState((initial.allowed_countries ?? []).join(', '));
  const [maxQueued, setMaxQueued] = useState(account.max_queued_messages);
  const [smartEncoding, setSmartEncoding] = useState(account.smart_encoding);
  const [dedupSeconds, setDedupSeconds] = useState(account.inbound_dedup_seconds);

  const save = useMutation({
    mutationFn: () => {
      const values = {
        send_window: windowOn ? window : null,
        max_attempts: attempts,
        allowed_countries: countriesOn
          ? countries
              .split(/[\s,]+/)
              .map((code) => code.trim())
              .filter(Boolean)
          : null,
      };
      if (!group) {
        return api('/api/v1/settings/sending', {
          method: 'PATCH',
          body: {
            ...values,
            max_queued_messages: maxQueued,
            smart_encoding: smartEncoding,
            inbound_dedup_seconds: dedupSeconds,
          },
        });
      }
      const sending = Object.fromEntries(
        (Object.keys(values) as Field[]).map((key) => [key, inherit[key] ? 'inherit' : values[key]]),
      );
      return api(`/api/v1/phone-groups/${group.id}`, { method: 'PATCH', body: { sending } });
    },
    onSuccess: () => refresh('sendingSettings', 'groups'),
  });
  const problem = save.error instanceof ApiProblem ? save.error : undefined;
  const fieldError = (prefix: string) =>
    problem?.errors.find((error) => error.path.replace(/^sending\./, '').startsWith(prefix))?.message;

  return {
    group,
    inherit,
    setInherit,
    windowOn,
    setWindowOn,
    window,
    setWindow,
    attempts,
    setAttempts,
    countriesOn,
    setCountriesOn,
    countries,
    setCountries,
    maxQueued,
    setMaxQueued,
    smartEncoding,
    setSmartEncoding,
    dedupSeconds,
    setDedupSeconds,
    save,
    problem,
    fieldError,
  };
}

export type SendingForm = ReturnType<typeof useSendingForm>;
