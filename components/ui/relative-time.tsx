'use client';

import { useEffect, useState } from 'react';

const STEPS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['second', 60],
  ['minute', 60],
  ['hour', 24],
  ['day', 30],
  ['month', 12],
  ['year', Number.POSITIVE_INFINITY],
];

/** "2 minutes ago": the largest unit that fits, in the browser's language. */
export function relativeTime(at: Date, now: Date): string {
  let amount = (at.getTime() - now.getTime()) / 1000;
  const format = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto', style: 'short' });
  for (const [unit, size] of STEPS) {
    if (Math.abs(amount) < size) return format.format(Math.round(amount), unit);
    amount /= size;
  }
  return format.format(Math.round(amount), 'year');
}

/** Re-renders every `intervalMs`, so relative times stay true while the page is open. */
function useNow(intervalMs: number): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = setInterval(() => setNow(new Date()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

/** A time shown as "2 min ago", the exact time in its tooltip and `dateTime`. */
export function RelativeTime({ value, empty = '—' }: { value: string | null | undefined; empty?: string }) {
  const now = useNow(15_000);
  if (!value) return <>{empty}</>;
  const at = new Date(value);
  return (
    <time dateTime={value} title={at.toLocaleString()}>
      {relativeTime(at, now)}
    </time>
  );
}
