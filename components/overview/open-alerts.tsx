'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { alertTitle } from '@/lib/alerts/present';
import type { AlertView } from '@/lib/alerts/schemas';
import { alertSubjectPath } from '@/lib/alerts/subject-path';
import { api, type Page } from '../api';
import { queryKeys } from '../query-keys';
import { Section } from '../ui/section';
import { ErrorState, Loading } from '../ui/states';

const SUBJECT_LABELS = { phone: 'Open the phone', group: 'Open the groups', webhook: 'Open the webhooks' } as const;

/** The Overview's open alerts, newest first, each linking to its subject. */
export function OpenAlerts() {
  const open = useQuery({
    queryKey: queryKeys.alerts.open(),
    queryFn: () => api<Page<AlertView>>('/api/v1/alerts?state=open&limit=20'),
    refetchInterval: 30_000,
  });
  return (
    <Section
      title="Open alerts"
      actions={
        <Link href="/dashboard/settings/alerts" className="text-sm font-medium text-slate-700 underline">
          Alert settings
        </Link>
      }
    >
      {open.isPending ? (
        <Loading label="Loading the open alerts…" rows={2} />
      ) : open.isError ? (
        <ErrorState error={open.error} onRetry={() => open.refetch()} />
      ) : open.data.data.length === 0 ? (
        <p className="text-sm text-slate-600" data-testid="no-open-alerts">
          No open alerts: every watched phone, group and webhook is within its thresholds.
        </p>
      ) : (
        <ul className="divide-y divide-slate-200 text-sm" data-testid="open-alerts">
          {open.data.data.map((alert) => (
            <li key={alert.id} className="flex flex-wrap items-center justify-between gap-2 py-2">
              <span className="min-w-0 break-words font-medium text-slate-900">{alertTitle(alert)}</span>
              <span className="flex flex-wrap items-center gap-3 text-slate-600">
                <span>since {new Date(alert.raised_at).toLocaleString()}</span>
                <Link
                  href={alertSubjectPath(alert.subject)}
                  className="font-medium text-slate-900 underline"
                  aria-label={`${SUBJECT_LABELS[alert.subject.type]}: ${alert.subject.name}`}
                >
                  {SUBJECT_LABELS[alert.subject.type]}
                </Link>
              </span>
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}
