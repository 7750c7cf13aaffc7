'use client';

import type { Webhook } from '@/components/wire';
import { Button } from '../ui/button';
import { RelativeTime } from '../ui/relative-time';
import { formatTime } from '../ui/section';
import type { WebhookActions } from './use-webhook-actions';
import { WebhookDeliveries } from './webhook-deliveries';

/** One webhook of the list: what it receives, its health, its switches and buttons, its deliveries when open. */
export function WebhookItem({ webhook, actions }: { webhook: Webhook; actions: WebhookActions }) {
  const open = actions.openDeliveries === webhook.id;
  return (
    <li className="rounded-md border border-slate-200 p-4">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <WebhookSummary webhook={webhook} />
        <WebhookButtons webhook={webhook} actions={actions} open={open} />
      </div>
      {open && <WebhookDeliveries webhookId={webhook.id} />}
    </li>
  );
}

function WebhookSummary({ webhook }: { webhook: Webhook }) {
  return (
    <div className="min-w-0">
      <p className="truncate font-medium">{webhook.url}</p>
      {webhook.format === 'smsgate' && (
        <p className="mt-1">
          <span className="rounded bg-indigo-100 px-1.5 py-0.5 text-xs font-medium text-indigo-900">
            SMSGate format
          </span>
          <span className="ml-2 text-xs text-slate-600">managed through /api/3rdparty/v1/webhooks</span>
        </p>
      )}
      {webhook.format === 'twilio' && (
        <p className="mt-1">
          <span className="rounded bg-rose-100 px-1.5 py-0.5 text-xs font-medium text-rose-900">Twilio format</span>
          <span className="ml-2 text-xs text-slate-600">signed with your Twilio Auth Token</span>
        </p>
      )}
      {webhook.description && <p className="text-sm text-slate-600">{webhook.description}</p>}
      <p className="mt-1 text-xs text-slate-500">
        {webhook.events.join(', ')}
        {webhook.phone_filters.length > 0 && ` · phones: ${webhook.phone_filters.join(', ')}`} · created{' '}
        {formatTime(webhook.created_at)}
      </p>
      <WebhookHealthLine health={webhook.health} />
      {!webhook.enabled && (
        <p className="mt-1 text-xs text-amber-800">
          Disabled{webhook.disabled_reason ? `: ${webhook.disabled_reason}` : ''}
        </p>
      )}
    </div>
  );
}

function WebhookButtons({ webhook, actions, open }: { webhook: Webhook; actions: WebhookActions; open: boolean }) {
  const { update, test, reveal, setConfirming, toggleDeliveries } = actions;
  return (
    <div className="flex flex-wrap gap-2">
      <label className="flex items-center gap-2 text-sm">
        <input
          type="checkbox"
          checked={webhook.enabled}
          onChange={(e) => update.mutate({ id: webhook.id, enabled: e.target.checked })}
        />
        Enabled
        <span className="sr-only"> {webhook.url}</span>
      </label>
      {webhook.format === 'standard' && webhook.events.includes('message.received') && (
        <label className="flex items-center gap-2 text-sm">
          <input
            type="checkbox"
            checked={webhook.accept_replies}
            onChange={(e) => update.mutate({ id: webhook.id, accept_replies: e.target.checked })}
          />
          Accepts replies
          <span className="sr-only"> {webhook.url}</span>
        </label>
      )}
      <Button variant="secondary" onClick={() => test.mutate(webhook.id)}>
        Send test
        <span className="sr-only"> of {webhook.url}</span>
      </Button>
      {webhook.format === 'standard' && (
        <>
          <Button variant="secondary" onClick={() => reveal.mutate(webhook.id)}>
            Show secret
            <span className="sr-only"> of {webhook.url}</span>
          </Button>
          <Button variant="secondary" onClick={() => setConfirming({ kind: 'rotate', webhook })}>
            Rotate secret
            <span className="sr-only"> of {webhook.url}</span>
          </Button>
        </>
      )}
      <Button variant="secondary" aria-expanded={open} onClick={() => toggleDeliveries(webhook.id)}>
        Deliveries
        <span className="sr-only"> of {webhook.url}</span>
      </Button>
      <Button variant="danger" onClick={() => setConfirming({ kind: 'delete', webhook })}>
        Delete
        <span className="sr-only"> {webhook.url}</span>
      </Button>
    </div>
  );
}

/** Last delivery and the day's failure rate, so a failing receiver shows before it is disabled. */
function WebhookHealthLine({ health }: { health: Webhook['health'] }) {
  if (!health?.last_attempt_at) return <p className="mt-1 text-xs text-slate-600">No deliveries this week.</p>;
  const rate = health.failure_rate_24h;
  const failing = rate !== null && rate > 0;
  return (
    <p className={`mt-1 text-xs ${failing ? 'text-red-800' : 'text-slate-600'}`}>
      Last delivery <RelativeTime value={health.last_attempt_at} />
      {health.last_status_code !== null ? ` (HTTP ${health.last_status_code})` : ' (no answer)'}
      {rate !== null &&
        ` · ${Math.round(rate * 100)}% of ${health.attempts_24h} attempt${health.attempts_24h === 1 ? '' : 's'} failed in 24 h`}
    </p>
  );
}
