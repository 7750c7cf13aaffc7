'use client';

import { useQuery } from '@tanstack/react-query';
import dynamic from 'next/dynamic';
import Link from 'next/link';
import { useEffect, useState } from 'react';
import { api, type Page } from '@/components/api';
import { usePhones } from '@/components/lists';
import { StatusBadge } from '@/components/phones/badges';
import { queryKeys } from '@/components/query-keys';
import { Section } from '@/components/ui/section';
import { ErrorState, Loading } from '@/components/ui/states';
import type { Balances, Message, MessageStats, Phone } from '@/components/wire';
import { OpenAlerts } from './open-alerts';

/** The chart library is only fetched by a page that draws a chart. */
const VolumeChart = dynamic(() => import('./volume-chart'), {
  ssr: false,
  loading: () => <div className="h-[240px] animate-pulse rounded bg-slate-100" />,
});

/** Below this, a phone's battery needs a charger soon. */
const LOW_BATTERY = 20;
/** While the onboarding is shown, its steps tick themselves off this often. */
const ONBOARDING_INTERVAL_MS = 3_000;

function attentionReasons(phone: Phone): string[] {
  const reasons: string[] = [];
  if (phone.status === 'offline') reasons.push('offline');
  if (phone.status === 'unknown') reasons.push('no heartbeat yet');
  if (phone.battery !== null && phone.battery < LOW_BATTERY) reasons.push(`battery ${phone.battery}%`);
  if (phone.paused_until) {
    const until = new Date(phone.paused_until).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
    reasons.push(`paused until ${until} (Android’s SMS limit)`);
  }
  if (phone.sim_verification !== 'verified') reasons.push('SIM not verified');
  if (!phone.device_connected) reasons.push('no device connected');
  return reasons;
}

function Stat({ label, value, href }: { label: string; value: string | number; href: string }) {
  return (
    <Link
      href={href}
      className="block rounded-lg border border-slate-200 bg-white p-4 shadow-sm hover:border-slate-400"
    >
      <span className="block text-sm text-slate-600">{label}</span>
      <span className="block text-2xl font-bold tabular-nums">{value}</span>
    </Link>
  );
}

function Step({ done, title, children }: { done: boolean; title: string; children: React.ReactNode }) {
  return (
    <li className="flex gap-3">
      <span
        aria-hidden="true"
        className={`mt-0.5 flex size-6 shrink-0 items-center justify-center rounded-full text-sm font-bold ${done ? 'bg-emerald-600 text-white' : 'border border-slate-400 text-slate-600'}`}
      >
        {done ? '✓' : ''}
      </span>
      <div className="min-w-0 space-y-1">
        <p className="font-medium">
          {title} <span className="sr-only">{done ? '(done)' : '(to do)'}</span>
        </p>
        {children}
      </div>
    </li>
  );
}

function isConnected(phones: Phone[]): boolean {
  return phones.some((phone) => phone.device_connected);
}

function hasDelivered(messages: Message[]): boolean {
  return messages.some((message) => message.direction === 'outbound' && message.status === 'delivered');
}

function Onboarding({ phones, messages, onDismiss }: { phones: Phone[]; messages: Message[]; onDismiss: () => void }) {
  const connected = isConnected(phones);
  const delivered = hasDelivered(messages);
  return (
    <Section
      title="Get started"
      actions={
        connected && delivered ? (
          <button type="button" onClick={onDismiss} className="text-sm font-medium text-slate-700 underline">
            Hide
          </button>
        ) : null
      }
    >
      {connected && delivered && (
        <p role="status" className="mb-3 text-sm font-medium text-emerald-800" data-testid="onboarding-done">
          You are set up: a phone is connected and your first message was delivered.
        </p>
      )}
      <ol className="space-y-4 text-sm">
        <Step done={connected} title="Connect a phone">
          <p className="text-slate-700">
            Add your phone on the{' '}
            <Link href="/dashboard/phones" className="underline">
              Phones
            </Link>{' '}
            page and pair the SMSGate app, or try it with the device simulator:
          </p>
          <pre className="whitespace-pre-wrap break-all rounded bg-slate-900 p-3 text-xs text-slate-100">
            <code>
              {
                'npm run device -- register --phone +14155550100 --email you@example.com\nnpm run device -- run --phone +14155550100'
              }
            </code>
          </pre>
        </Step>
        <Step done={delivered} title="Send a first message">
          <p className="text-slate-700">
            Compose one on the{' '}
            <Link href="/dashboard/messages" className="underline">
              Messages
            </Link>{' '}
            page and watch it reach delivered.
          </p>
        </Step>
      </ol>
    </Section>
  );
}

/** Daily volume by state over 30 days, with the totals read out for screen readers. */
function VolumeSection({ stats }: { stats: MessageStats }) {
  const total = stats.daily.reduce((n, d) => n + d.queued + d.sent + d.delivered + d.failed + d.received, 0);
  const month = stats.last_30_days;
  return (
    <Section title="Last 30 days">
      <p className="sr-only">
        {`${month.sent} sent, ${month.delivered} delivered, ${month.failed} failed, ${month.received} received, ${month.credits_used} credits used.`}
      </p>
      {total === 0 ? (
        <p className="text-sm text-slate-600">No messages in the last 30 days yet.</p>
      ) : (
        <div aria-hidden="true" className="overflow-hidden" data-testid="volume-chart">
          <VolumeChart daily={stats.daily} />
        </div>
      )}
    </Section>
  );
}

export function Overview() {
  const stats = useQuery({
    queryKey: queryKeys.stats.root,
    queryFn: () => api<MessageStats>('/api/v1/stats/messages'),
    refetchInterval: 30_000,
  });
  const phones = usePhones({ refetchInterval: ONBOARDING_INTERVAL_MS });
  const balance = useQuery({
    queryKey: queryKeys.balance.root,
    queryFn: () => api<Balances>('/api/v1/credits/balance'),
  });
  const messages = useQuery({
    queryKey: queryKeys.messages.list({ limit: '50' }),
    queryFn: () => api<Page<Message>>('/api/v1/messages?limit=50'),
    refetchInterval: ONBOARDING_INTERVAL_MS,
  });

  const onboarding =
    phones.data !== undefined &&
    messages.data !== undefined &&
    (!isConnected(phones.data) || !hasDelivered(messages.data.data));
  // Once shown, the steps stay on this visit until hidden, so the last one is seen ticking off.
  const [onboardingSeen, setOnboardingSeen] = useState(false);
  const [onboardingHidden, setOnboardingHidden] = useState(false);
  useEffect(() => {
    if (onboarding) setOnboardingSeen(true);
  }, [onboarding]);

  if (phones.isPending || messages.isPending) return <Loading label="Loading the overview…" rows={6} />;
  if (phones.isError) return <ErrorState error={phones.error} onRetry={() => phones.refetch()} />;
  if (messages.isError) return <ErrorState error={messages.error} onRetry={() => messages.refetch()} />;

  const list = phones.data;
  const sent = messages.data.data;
  const attention = list
    .map((phone) => ({ phone, reasons: attentionReasons(phone) }))
    .filter((row) => row.reasons.length > 0);

  return (
    <>
      {onboarding || (onboardingSeen && !onboardingHidden) ? (
        <Onboarding phones={list} messages={sent} onDismiss={() => setOnboardingHidden(true)} />
      ) : null}
      <div className="grid grid-cols-2 gap-3 sm:grid-cols-4">
        <Stat
          label="Phones online"
          value={`${list.filter((p) => p.status === 'online').length} / ${list.length}`}
          href="/dashboard/phones"
        />
        <Stat label="Credits" value={balance.data?.total ?? '…'} href="/dashboard/credits" />
        <Stat
          label="Queued / most allowed"
          value={stats.data ? `${stats.data.queue.queued} / ${stats.data.queue.max_queued_messages}` : '…'}
          href="/dashboard/settings/sending"
        />
        <Stat label="Sent today" value={stats.data?.today.sent ?? '…'} href="/dashboard/messages" />
        <Stat label="Received today" value={stats.data?.today.received ?? '…'} href="/dashboard/messages" />
        <Stat label="Delivered today" value={stats.data?.today.delivered ?? '…'} href="/dashboard/messages" />
        <Stat label="Failed today" value={stats.data?.today.failed ?? '…'} href="/dashboard/messages" />
        <Stat label="Sent, 30 days" value={stats.data?.last_30_days.sent ?? '…'} href="/dashboard/messages" />
        <Stat
          label="Credits used, 30 days"
          value={stats.data?.last_30_days.credits_used ?? '…'}
          href="/dashboard/credits"
        />
      </div>
      <OpenAlerts />
      {stats.data ? <VolumeSection stats={stats.data} /> : null}
      <Section title="Phones needing attention">
        {attention.length === 0 ? (
          <p className="text-sm text-slate-600">
            {list.length === 0
              ? 'No phones yet: add one on the Phones page.'
              : 'Every phone is online, charged and verified.'}
          </p>
        ) : (
          <ul className="divide-y divide-slate-200 text-sm">
            {attention.map(({ phone, reasons }) => (
              <li key={phone.id} className="flex flex-wrap items-center justify-between gap-2 py-2">
                <Link href={`/dashboard/phones/${phone.id}`} className="font-medium underline">
                  {phone.label ? `${phone.label} (${phone.phone})` : phone.phone}
                </Link>
                <span className="flex flex-wrap items-center gap-2">
                  <StatusBadge status={phone.status} />
                  <span className="text-slate-700">{reasons.join(', ')}</span>
                </span>
              </li>
            ))}
          </ul>
        )}
      </Section>
    </>
  );
}
