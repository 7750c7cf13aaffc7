'use client';

import { useId } from 'react';
import type { Phone } from '@/components/wire';
import { NEAR_CAP_SHARE } from '@/lib/phones/limits';
import { Section } from '../ui/section';

type Meter = { label: string; used: number; cap: number | null; unit: string; resets: string };

type CapUsage = { this_hour: number; today: number; recipients_this_month: number };

/** The meters of the hourly, daily and monthly caps over `usage`, their labels ending in `suffix`. */
function capMeters(phone: Phone, usage: CapUsage, suffix: string): Meter[] {
  const monthEnds = new Date(phone.usage.month_resets_at).toLocaleDateString(undefined, {
    day: 'numeric',
    month: 'short',
  });
  return [
    {
      label: `This hour${suffix}`,
      used: usage.this_hour,
      cap: phone.hourly_cap,
      unit: 'messages',
      resets: 'any 60 minutes',
    },
    {
      label: `Today${suffix}`,
      used: usage.today,
      cap: phone.daily_cap,
      unit: 'messages',
      resets: 'resets at midnight UTC',
    },
    {
      label: `Recipients this month${suffix}`,
      used: usage.recipients_this_month,
      cap: phone.monthly_recipient_cap,
      unit: 'distinct numbers',
      resets: `resets ${monthEnds} (UTC)`,
    },
  ];
}

/** The phone's meters: its pace, then its caps, per SIM on a phone with several (each SIM has the caps). */
function metersOf(phone: Phone): Meter[] {
  const perMinute: Meter = {
    label: 'This minute',
    used: phone.usage.this_minute,
    cap: phone.messages_per_minute,
    unit: 'messages',
    resets: 'any 60 seconds',
  };
  const sims = phone.usage.sims;
  if (!sims) return [perMinute, ...capMeters(phone, phone.usage, '')];
  return [perMinute, ...sims.flatMap((sim) => capMeters(phone, sim, ` (SIM ${sim.sim})`))];
}

/** Each of the phone's caps with what counts against it now, as a meter; a cap near its end is flagged. */
export function QuotaMeters({ phone }: { phone: Phone }) {
  const ids = useId();
  return (
    <Section title="Usage under its caps">
      <ul className="grid grid-cols-1 gap-4 sm:grid-cols-2">
        {metersOf(phone).map((meter, index) => {
          const id = `${ids}-${index}`;
          const near = meter.cap !== null && meter.used >= meter.cap * NEAR_CAP_SHARE;
          return (
            <li key={meter.label} className="flex flex-col gap-1">
              <div className="flex items-baseline justify-between gap-2 text-sm">
                <label htmlFor={id} className="font-medium text-slate-800">
                  {meter.label}
                </label>
                <span className={near ? 'font-semibold text-red-800' : 'text-slate-700'}>
                  {meter.cap === null ? `${meter.used} (no cap)` : `${meter.used} of ${meter.cap}`}
                </span>
              </div>
              <meter
                id={id}
                className="h-3 w-full"
                min={0}
                max={meter.cap ?? Math.max(1, meter.used)}
                low={meter.cap === null ? undefined : meter.cap * NEAR_CAP_SHARE}
                high={meter.cap === null ? undefined : meter.cap * NEAR_CAP_SHARE}
                optimum={0}
                value={meter.cap === null ? 0 : Math.min(meter.used, meter.cap)}
                aria-describedby={`${id}-note`}
              />
              <span id={`${id}-note`} className="text-xs text-slate-600">
                {meter.unit}, {meter.resets}
                {near ? ' — near its cap' : ''}
              </span>
            </li>
          );
        })}
      </ul>
      <p className="mt-4 text-sm text-slate-700">
        {phone.jitter_seconds > 0
          ? `A random delay of up to ${phone.jitter_seconds} s between two of its messages.`
          : 'No random delay between its messages.'}
      </p>
    </Section>
  );
}
