'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { EMAIL_REPLY_WINDOW_DAYS } from '@/lib/email-to-sms/limits';
import type { EmailSmsSettings, EmailSmsSettingsChange } from '@/lib/email-to-sms/schemas';
import { api } from '../api';
import { queryKeys } from '../query-keys';
import { Button } from '../ui/button';
import { Section } from '../ui/section';
import { ErrorState, Loading } from '../ui/states';
import { useRefresh } from '../use-refresh';

/** Settings → Email to SMS: how a mail to `<number>@<domain>` becomes the account's SMS. */
export function EmailSmsSettingsPanel() {
  const settings = useQuery({
    queryKey: queryKeys.emailSmsSettings.root,
    queryFn: () => api<EmailSmsSettings>('/api/v1/settings/email-to-sms'),
  });
  return (
    <Section title="Email to SMS">
      {settings.isPending ? (
        <Loading label="Loading the Email to SMS settings…" rows={3} />
      ) : settings.isError ? (
        <ErrorState error={settings.error} onRetry={() => settings.refetch()} />
      ) : (
        <>
          <Addresses settings={settings.data} />
          <EmailSmsForm key={JSON.stringify(settings.data)} settings={settings.data} />
        </>
      )}
    </Section>
  );
}

function Addresses({ settings }: { settings: EmailSmsSettings }) {
  const example = settings.domains[0] ?? 'your-domain';
  return (
    <div className="mb-4 flex flex-col gap-2 text-sm text-slate-600">
      {settings.enabled ? (
        <p>
          A mail to <code>14155550123@{example}</code> becomes an SMS to +1 415 555 0123 from your default group, or
          from one of your phones named after a <code>+</code>: <code>14155550123+14155550100@{example}</code>. Send it
          with SMTP AUTH: the user <code>apikey</code> and an API key as the password. The recipients in To and Cc get
          the SMS (Bcc recipients do not), at most {settings.max_recipients} in one mail.
        </p>
      ) : (
        <p>This server does not take mail: its operator sets SMTP_PORT to turn Email to SMS on.</p>
      )}
    </div>
  );
}

function EmailSmsForm({ settings }: { settings: EmailSmsSettings }) {
  const ids = useId();
  const refresh = useRefresh();
  const [form, setForm] = useState<Required<EmailSmsSettingsChange>>({
    subject_prefix: settings.subject_prefix,
    over_length: settings.over_length,
    forward_replies: settings.forward_replies,
  });
  const save = useMutation({
    mutationFn: () => api<EmailSmsSettings>('/api/v1/settings/email-to-sms', { method: 'PATCH', body: form }),
    onSuccess: () => refresh('emailSmsSettings'),
    meta: { success: 'Email to SMS settings saved' },
  });
  return (
    <form
      className="flex flex-col gap-4"
      onSubmit={(event) => {
        event.preventDefault();
        save.mutate();
      }}
    >
      <label className="flex items-center gap-2 text-sm font-medium text-slate-800">
        <input
          type="checkbox"
          checked={form.subject_prefix}
          onChange={(event) => setForm({ ...form, subject_prefix: event.target.checked })}
        />
        Start the text with the mail’s subject
      </label>
      <fieldset className="flex flex-col gap-2 text-sm">
        <legend className="mb-1 font-medium text-slate-800">A text longer than {settings.max_length} characters</legend>
        <label className="flex items-center gap-2" htmlFor={`${ids}-refuse`}>
          <input
            id={`${ids}-refuse`}
            type="radio"
            name={`${ids}-over-length`}
            checked={form.over_length === 'refuse'}
            onChange={() => setForm({ ...form, over_length: 'refuse' })}
          />
          is refused: the sender gets an error and nothing is sent
        </label>
        <label className="flex items-center gap-2" htmlFor={`${ids}-truncate`}>
          <input
            id={`${ids}-truncate`}
            type="radio"
            name={`${ids}-over-length`}
            checked={form.over_length === 'truncate'}
            onChange={() => setForm({ ...form, over_length: 'truncate' })}
          />
          is cut to {settings.max_length} characters
        </label>
      </fieldset>
      <label className="flex items-start gap-2 text-sm text-slate-800">
        <input
          type="checkbox"
          className="mt-1"
          checked={form.forward_replies}
          onChange={(event) => setForm({ ...form, forward_replies: event.target.checked })}
        />
        <span>
          <span className="font-medium">Forward replies to the mail’s sender</span>
          <span className="block text-slate-600">
            An SMS answering an SMS sent by email in the last {EMAIL_REPLY_WINDOW_DAYS} days is emailed to the mail’s
            sender, when that address is your account’s email or one of your confirmed addresses (Automation, Email
            addresses).
          </span>
        </span>
      </label>
      <div className="flex items-center gap-3">
        <Button type="submit" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save'}
        </Button>
        {save.isSuccess && <output className="text-sm text-green-800">Saved.</output>}
        {save.isError && <ErrorState error={save.error} />}
      </div>
    </form>
  );
}
