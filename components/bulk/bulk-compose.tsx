'use client';

import { useId, useState } from 'react';
import { countSegments } from '@/lib/messages/segments';
import { Button } from '../ui/button';
import { Section } from '../ui/section';
import { ErrorState } from '../ui/states';
import { InvalidRows, PreviewCard } from './bulk-preview';
import { MAX_RECIPIENTS, RecipientsFieldset, useRecipients } from './recipients-fieldset';
import { SenderSelect, useSenders } from './sender-select';
import { useBulkSend } from './use-bulk-send';

export function BulkCompose({ onSent }: { onSent: (bulkId: string) => void }) {
  const ids = useId();
  const senders = useSenders();
  const recipients = useRecipients();
  const [sender, setSender] = useState('');
  const [content, setContent] = useState('');
  const { rows } = recipients;
  const chosen = sender || senders.fallback;
  const { check, send, invalid, preview, edited } = useBulkSend({ rows, sender: chosen, content, onSent });
  const tooMany = rows.length > MAX_RECIPIENTS;

  return (
    <Section title="Bulk send">
      <form
        className="flex flex-col gap-4"
        onSubmit={(event) => {
          event.preventDefault();
          check.mutate();
        }}
      >
        <SenderSelect
          id={`${ids}-from`}
          senders={senders}
          value={chosen}
          onChange={(value) => {
            setSender(value);
            edited();
          }}
        />
        <RecipientsFieldset ids={ids} recipients={recipients} onEdit={edited} />
        <MessageField
          ids={ids}
          content={content}
          onChange={(value) => {
            setContent(value);
            edited();
          }}
        />
        <div>
          <Button type="submit" disabled={check.isPending || rows.length === 0 || tooMany || !content || !chosen}>
            {check.isPending ? 'Checking…' : 'Preview cost'}
          </Button>
        </div>
      </form>
      {check.error && <ErrorState error={check.error} />}
      {invalid.length > 0 && <InvalidRows invalid={invalid} />}
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

/** The message text, with its length, encoding and segments. */
function MessageField({ ids, content, onChange }: { ids: string; content: string; onChange: (value: string) => void }) {
  const counted = countSegments(content);
  return (
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
        onChange={(event) => onChange(event.target.value)}
      />
      <span id={`${ids}-count`} className="text-xs text-slate-600" aria-live="polite">
        {content.length} characters · {counted.encoding} · {content ? counted.segments : 0} segment(s) per message
        before variables · 1 credit per message
      </span>
    </div>
  );
}
