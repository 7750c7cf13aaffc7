'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { ApiProblem, api } from '@/components/api';
import { queryKeys } from '@/components/query-keys';
import { Button } from '@/components/ui/button';
import { formatTime, Section } from '@/components/ui/section';
import { ErrorState, Loading } from '@/components/ui/states';
import { useRefresh } from '@/components/use-refresh';
import type { DeliveryDetail as Detail, Webhook } from '@/components/wire';

const LIVE_INTERVAL_MS = 2_000;
const LINK =
  'text-sm font-medium text-slate-700 underline underline-offset-2 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-slate-900';
const CODE_BLOCK = 'max-h-96 overflow-auto rounded-md bg-slate-900 p-3 text-xs leading-relaxed text-slate-100';

/** The headers a delivery carries (lib/webhooks/http-client.ts and signing.ts; SMSGate's for its format). */
function requestHeaders(webhook: Webhook | undefined, delivery: Detail): Array<[string, string]> {
  const common: Array<[string, string]> = [
    ['content-type', 'application/json'],
    ['user-agent', 'Simgate-Webhooks/1.0'],
  ];
  if (webhook?.format === 'twilio') {
    return [
      ['content-type', 'application/x-www-form-urlencoded'],
      ['user-agent', 'Simgate-Webhooks/1.0'],
      ['x-twilio-signature', 'base64 HMAC-SHA1 of the URL and the sorted parameters, with the Auth Token'],
    ];
  }
  if (webhook?.format === 'smsgate') {
    return [
      ...common,
      ['x-timestamp', 'Unix seconds of the attempt'],
      ['x-signature', 'hex HMAC-SHA256 of body + timestamp, made at each attempt'],
    ];
  }
  return [
    ...common,
    ['webhook-id', delivery.event_id],
    ['webhook-timestamp', 'Unix seconds of the attempt'],
    ['webhook-signature', 'v1,<base64> per live secret, made at each attempt'],
  ];
}

function outcomeStyle(statusCode: number | null): string {
  if (statusCode !== null && statusCode >= 200 && statusCode < 300) return 'bg-green-100 text-green-900';
  return 'bg-red-100 text-red-900';
}

/**
 * One delivery of a webhook: what was posted (headers and body), and every attempt with the receiver's
 * answer and how long it took. Live while the delivery is still pending.
 */
export function DeliveryDetail({ webhookId, deliveryId }: { webhookId: string; deliveryId: string }) {
  const refresh = useRefresh();
  const delivery = useQuery({
    queryKey: queryKeys.deliveries.one(deliveryId),
    queryFn: () => api<Detail>(`/api/v1/webhooks/${webhookId}/deliveries/${deliveryId}`),
    refetchInterval: (query) => (query.state.data?.status === 'pending' ? LIVE_INTERVAL_MS : false),
  });
  const webhook = useQuery({
    queryKey: queryKeys.webhooks.one(webhookId),
    queryFn: () => api<Webhook>(`/api/v1/webhooks/${webhookId}`),
  });
  const resend = useMutation({
    meta: { success: 'Delivery queued again' },
    mutationFn: () => api(`/api/v1/webhooks/${webhookId}/deliveries/${deliveryId}/resend`, { method: 'POST' }),
    onSuccess: () => refresh('deliveries'),
  });
  const back = (
    <Link href="/dashboard/settings/webhooks" className={LINK}>
      ← All webhooks
    </Link>
  );

  if (delivery.isPending) {
    return (
      <>
        <h1 className="sr-only">Webhook delivery</h1>
        <Loading label="Loading the delivery…" />
      </>
    );
  }
  if (delivery.isError) {
    const missing =
      delivery.error instanceof ApiProblem && (delivery.error.status === 404 || delivery.error.status === 400);
    return (
      <>
        {back}
        <h1 className="text-2xl font-bold tracking-tight">{missing ? 'Delivery not found' : 'Webhook delivery'}</h1>
        {missing ? (
          <p className="text-sm text-slate-600">There is no such delivery of this account’s webhooks.</p>
        ) : (
          <ErrorState error={delivery.error} onRetry={() => delivery.refetch()} />
        )}
      </>
    );
  }
  const d = delivery.data;
  const lastAttempt = d.attempts.at(-1);
  return (
    <>
      {back}
      <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
        <h1 className="text-2xl font-bold tracking-tight break-all">
          <code>{d.event_type}</code> delivery
        </h1>
        <span
          data-testid="delivery-status"
          className={`rounded px-2 py-0.5 text-xs font-medium ${d.status === 'succeeded' ? 'bg-green-100 text-green-900' : d.status === 'pending' ? 'bg-slate-200 text-slate-800' : 'bg-red-100 text-red-900'}`}
        >
          {d.status}
        </span>
      </div>

      <Section
        title="Summary"
        actions={
          <Button variant="secondary" onClick={() => resend.mutate()} disabled={resend.isPending}>
            {resend.isPending ? 'Queuing…' : 'Resend'}
          </Button>
        }
      >
        {resend.error && <ErrorState error={resend.error} />}
        <dl className="grid grid-cols-1 gap-x-6 gap-y-2 text-sm sm:grid-cols-[max-content_1fr]">
          <dt className="font-medium text-slate-600">Receiver</dt>
          <dd className="break-all">{webhook.data?.url ?? '…'}</dd>
          <dt className="font-medium text-slate-600">Event id</dt>
          <dd className="break-all">
            <code>{d.event_id}</code>
          </dd>
          <dt className="font-medium text-slate-600">Queued</dt>
          <dd>{formatTime(d.created_at)}</dd>
          <dt className="font-medium text-slate-600">Attempts</dt>
          <dd>
            {d.attempt_count}
            {d.next_attempt_at && <span className="text-slate-600"> · next {formatTime(d.next_attempt_at)}</span>}
          </dd>
          <dt className="font-medium text-slate-600">Last answer</dt>
          <dd>
            {lastAttempt
              ? `${lastAttempt.status_code ?? 'no answer'}${lastAttempt.latency_ms === null ? '' : ` in ${lastAttempt.latency_ms} ms`}`
              : '—'}
          </dd>
        </dl>
      </Section>

      <Section title="Request">
        <p className="mb-2 text-sm text-slate-700">
          <code>POST</code> <span className="break-all">{webhook.data?.url ?? ''}</span>
        </p>
        <table className="mb-4 w-full text-left text-xs" aria-label="Request headers">
          <tbody>
            {requestHeaders(webhook.data, d).map(([name, value]) => (
              <tr key={name} className="border-t border-slate-100 align-top">
                <th scope="row" className="py-1 pr-4 font-mono font-medium whitespace-nowrap">
                  {name}
                </th>
                <td className="py-1 break-all">{value}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <h3 className="mb-1 text-sm font-medium">
          Body{webhook.data?.format === 'smsgate' ? ' (the event, posted in SMSGate’s format)' : ''}
        </h3>
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard */}
        <section tabIndex={0} aria-label="Request body" className={CODE_BLOCK} data-testid="request-body">
          <pre>{JSON.stringify(d.payload, null, 2)}</pre>
        </section>
      </Section>

      <Section title="Attempts">
        {d.attempts.length === 0 ? (
          <p className="text-sm text-slate-600">Not attempted yet: the worker picks it up within seconds.</p>
        ) : (
          <ol className="space-y-4" aria-label="Attempts, oldest first">
            {d.attempts.map((attempt, index) => (
              <li key={attempt.id} className="rounded-md border border-slate-200 p-3 text-sm" data-testid="attempt">
                <div className="flex flex-wrap items-center gap-2">
                  <span className="font-medium">Attempt {index + 1}</span>
                  <span className={`rounded px-2 py-0.5 text-xs font-medium ${outcomeStyle(attempt.status_code)}`}>
                    {attempt.status_code === null ? 'no answer' : `HTTP ${attempt.status_code}`}
                  </span>
                  <time dateTime={attempt.attempted_at} className="text-slate-700">
                    {formatTime(attempt.attempted_at)}
                  </time>
                  {attempt.latency_ms !== null && (
                    <span className="text-slate-700" data-testid="attempt-latency">
                      {attempt.latency_ms} ms
                    </span>
                  )}
                </div>
                {attempt.error && <p className="mt-2 break-words text-red-800">{attempt.error}</p>}
                {attempt.reply_result && (
                  <p className="mt-2 text-slate-700">
                    Reply: <span className="font-medium">{attempt.reply_result}</span>
                  </p>
                )}
                {attempt.response_body !== null && (
                  <>
                    <h3 className="mt-3 mb-1 text-xs font-medium text-slate-600">Response body (first 1 KiB)</h3>
                    {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard */}
                    <section tabIndex={0} aria-label={`Response body of attempt ${index + 1}`} className={CODE_BLOCK}>
                      <pre className="whitespace-pre-wrap break-all">{attempt.response_body || '(empty)'}</pre>
                    </section>
                  </>
                )}
              </li>
            ))}
          </ol>
        )}
      </Section>
    </>
  );
}
