'use client';

import { useQuery } from '@tanstack/react-query';
import dynamic from 'next/dynamic';
import { api, type Page } from '@/components/api';
import { queryKeys } from '@/components/query-keys';
import { Section } from '@/components/ui/section';
import { ErrorState } from '@/components/ui/states';
import type { Heartbeat } from '@/components/wire';
import type { BatteryPoint } from './battery-chart';

const CHART_HEIGHT = 'h-[220px]';
/** The chart library is only fetched by a page that draws a chart. */
const BatteryChart = dynamic(() => import('./battery-chart'), {
  ssr: false,
  loading: () => <div className={`${CHART_HEIGHT} animate-pulse rounded bg-slate-100`} />,
});

/** Battery over the last heartbeats of one phone, as a line; a table twin for screen readers. */
export function BatterySection({ phoneId }: { phoneId: string }) {
  const heartbeats = useQuery({
    queryKey: queryKeys.phones.heartbeats(phoneId),
    queryFn: () => api<Page<Heartbeat>>(`/api/v1/phones/${phoneId}/heartbeats?limit=100`),
    refetchInterval: 30_000,
  });
  const points: BatteryPoint[] = (heartbeats.data?.data ?? [])
    .filter((entry): entry is Heartbeat & { battery: number } => entry.battery !== null)
    .map((entry) => ({ at: Date.parse(entry.at), battery: entry.battery }))
    .sort((a, b) => a.at - b.at);
  const last = points.at(-1);

  return (
    <Section title="Battery">
      {heartbeats.isPending ? (
        <div className={`${CHART_HEIGHT} animate-pulse rounded bg-slate-100`} />
      ) : heartbeats.isError ? (
        <ErrorState error={heartbeats.error} onRetry={() => heartbeats.refetch()} />
      ) : points.length === 0 ? (
        <p className="text-sm text-slate-600">
          No battery readings yet: they arrive with the phone's heartbeats once a device is connected.
        </p>
      ) : (
        <figure className="m-0 min-w-0">
          <div
            aria-hidden="true"
            className="w-full min-w-0 overflow-hidden"
            data-testid="battery-chart"
            data-points={points.length}
          >
            <BatteryChart points={points} />
          </div>
          <figcaption className="mt-2 text-sm text-slate-600">
            {points.length} reading{points.length === 1 ? '' : 's'} from the latest heartbeats
            {last ? `; now ${last.battery}%` : ''}.
          </figcaption>
        </figure>
      )}
    </Section>
  );
}
