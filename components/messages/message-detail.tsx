'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { ApiProblem, api } from '@/components/api';
import { PassphraseField } from '@/components/crypto/passphrase';
import { queryKeys } from '@/components/query-keys';
import { formatTime, Section } from '@/components/ui/section';
import { ErrorState, Loading } from '@/components/ui/states';
import type { Message } from '@/components/wire';
import { SKIP_REASON_TEXT } from '@/lib/messages/gate-reasons';
import { FINAL_MESSAGE_STATUSES } from '@/lib/messages/states';
import { MessageNumber, MessageText } from './message-text';
import { MessageStatusBadge } from './status-badge';

const LIVE_INTERVAL_MS = 2_000;

/** One message: what was sent, by whom, and every state it went through with its time, live until final. */
export function MessageDetail({ messageId }: { messageId: string }) {
  const message = useQuery({
    queryKey: queryKeys.messages.one(messageId),
    queryFn: () => api<Message>(`/api/v1/messages/${messageId}`),
    refetchInterval: (query) =>
      query.state.data && FINAL_MESSAGE_STATUSES.has(query.state.data.status) ? false : LIVE_INTERVAL_MS,
  });
  const back = (
    <Link href="/dashboard/messages" className="text-sm font-medium text-slate-700 underline">
      ← All messages
    </Link>
  );
  if (message.isPending) return <Loading label="Loading the message…" />;
  if (message.isError) {
    const missing =
      message.error instanceof ApiProblem && (message.error.status === 404 || message.error.status === 400);
    return (
      <>
        {back}
        <h1 className="text-2xl font-bold tracking-tight">{missing ? 'Message not found' : 'Message'}</h1>
        {missing ? (
          <p className="text-sm text-slate-600">There is no such message in this account.</p>
        ) : (
          <ErrorState error={message.error} onRetry={() => message.refetch()} />
        )}
      </>
    );
  }
  const m = message.data;
  return (
    <>
      {back}
      <h1 className="text-2xl font-bold tracking-tight break-words">
        {m.direction === 'outbound' ? 'To ' : 'From '}
        <MessageNumber message={m} number={m.direction === 'outbound' ? m.to : m.from} />
      </h1>
      {m.encrypted ? <PassphraseField /> : null}
      <Section title="Message">
        <dl className="grid grid-cols-1 gap-x-6 gap-y-2 text-sm sm:grid-cols-[max-content_1fr]">
          <dt className="font-medium text-slate-600">State</dt>
          <dd>
            <MessageStatusBadge status={m.status} />
            {m.error ? <span className="ml-2 text-red-800">{m.error}</span> : null}
          </dd>
          <dt className="font-medium text-slate-600">From → To</dt>
          <dd className="break-words">
            <MessageNumber message={m} number={m.from} /> → <MessageNumber message={m} number={m.to} />
          </dd>
          <dt className="font-medium text-slate-600">Encryption</dt>
          <dd>
            {m.encrypted
              ? 'Encrypted with the SMSGate app’s passphrase: Simgate stores and forwards it unread'
              : 'None'}
          </dd>
          <dt className="font-medium text-slate-600">Text</dt>
          <dd className="whitespace-pre-wrap break-words">
            <MessageText message={m} />
            {m.content_purged_at ? (
              <span className="block text-xs text-slate-600">
                on {formatTime(m.content_purged_at)}
                {m.content ? ` · SHA-256 ${m.content}` : ''}
              </span>
            ) : null}
          </dd>
          <dt className="font-medium text-slate-600">Encoding</dt>
          <dd>
            {m.encrypted
              ? 'Unknown: the phone splits the decrypted text'
              : `${m.encoding}, ${m.segments} segment${m.segments === 1 ? '' : 's'}`}
          </dd>
          <dt className="font-medium text-slate-600">Created</dt>
          <dd>{formatTime(m.created_at)}</dd>
          {m.origin ? (
            <>
              <dt className="font-medium text-slate-600">Sent by</dt>
              <dd>
                {ORIGIN_LABELS[m.origin.kind]}, answering{' '}
                <Link className="underline" href={`/dashboard/messages/${m.origin.inbound_message_id}`}>
                  the message it received
                </Link>
              </dd>
            </>
          ) : null}
        </dl>
      </Section>
      {m.direction === 'inbound' ? <AutomationRecord entries={m.automation} /> : null}
      <Section title="Timeline">
        {m.history && m.history.length > 0 ? (
          <ol className="space-y-3 border-l-2 border-slate-200 pl-4 text-sm">
            {m.history.map((entry) => (
              <li key={`${entry.status}-${entry.at}`} className="space-y-1">
                <div className="flex flex-wrap items-center gap-2">
                  {entry.status === 'rerouted' || entry.status === 'retrying' ? (
                    <span className="inline-block rounded bg-violet-100 px-2 py-0.5 text-xs font-medium text-violet-900">
                      {entry.status}
                    </span>
                  ) : (
                    <MessageStatusBadge status={entry.status} />
                  )}
                  <time dateTime={entry.at} className="text-slate-700">
                    {formatTime(entry.at)}
                  </time>
                </div>
                {entry.from && entry.to ? (
                  <p className="text-slate-700">
                    {entry.from} → {entry.to}
                  </p>
                ) : null}
                {entry.error ? <p className="text-red-800">{entry.error}</p> : null}
              </li>
            ))}
          </ol>
        ) : (
          <p className="text-sm text-slate-600">No state changes recorded yet.</p>
        )}
      </Section>
    </>
  );
}

const ORIGIN_LABELS: Record<NonNullable<Message['origin']>['kind'], string> = {
  rule: 'An inbound rule',
  help: 'The HELP responder',
  webhook_reply: 'A webhook’s reply',
};

const ACTION_LABELS: Record<NonNullable<Message['automation']>[number]['action'], string> = {
  reply: 'Reply',
  forward_sms: 'Forward by SMS',
  forward_email: 'Forward by email',
  webhook: 'Sent to a webhook',
  help: 'HELP answer',
  email_reply: 'Forward to the mail’s sender',
  webhook_reply: 'Webhook reply',
};

/** What inbound rules, HELP and webhook replies did about an inbound message. */
function AutomationRecord({ entries }: { entries: Message['automation'] }) {
  return (
    <Section title="Automation">
      {entries && entries.length > 0 ? (
        <ul className="space-y-2 text-sm" aria-label="What automation did">
          {entries.map((entry, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the record's order is its identity
            <li key={index} className="flex flex-wrap items-center gap-2">
              <span
                className={`rounded px-2 py-0.5 text-xs font-medium ${entry.result === 'sent' ? 'bg-green-100 text-green-900' : 'bg-amber-100 text-amber-900'}`}
              >
                {entry.result}
              </span>
              <span>{ACTION_LABELS[entry.action]}</span>
              {entry.reason ? <span className="text-slate-600">({SKIP_REASON_TEXT[entry.reason]})</span> : null}
              {entry.message_id ? (
                <Link className="underline" href={`/dashboard/messages/${entry.message_id}`}>
                  view the message sent
                </Link>
              ) : null}
            </li>
          ))}
        </ul>
      ) : (
        <p className="text-sm text-slate-600">
          No rule acted on this message.{' '}
          <Link className="underline" href="/dashboard/automation">
            Set up automation
          </Link>
        </p>
      )}
    </Section>
  );
}
