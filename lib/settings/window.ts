import type { SendWindow } from '@/db/schema';

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

const WEEKDAY_OF: Record<string, Weekday> = {
  Mon: 'mon',
  Tue: 'tue',
  Wed: 'wed',
  Thu: 'thu',
  Fri: 'fri',
  Sat: 'sat',
  Sun: 'sun',
};
const ORDER: readonly Weekday[] = WEEKDAYS;

/** Whether `timeZone` is an IANA name this runtime knows. */
export function isTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

function minutesOf(hhmm: string): number {
  const [h = '0', m = '0'] = hhmm.split(':');
  return Number(h) * 60 + Number(m);
}

/** The weekday and minute of the day at `now` in the window's time zone. */
function localTime(window: SendWindow, now: Date): { day: Weekday; minute: number } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: window.time_zone,
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(now);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return { day: WEEKDAY_OF[part('weekday')] ?? 'mon', minute: Number(part('hour')) * 60 + Number(part('minute')) };
}

/** Whether `now` falls inside the window: one of its days, from `start` up to (not including) `end`. */
export function isInWindow(window: SendWindow | null, now: Date): boolean {
  if (!window) return true;
  const { day, minute } = localTime(window, now);
  return window.days.includes(day) && minute >= minutesOf(window.start) && minute < minutesOf(window.end);
}

/**
 * Milliseconds until the window next opens (0 when open now). Counted in local minutes, so a
 * daylight-saving change in between may shift it by an hour: a claim only waits that long at most
 * as long as its own long-poll, and looks again when it wakes.
 */
export function msUntilOpen(window: SendWindow | null, now: Date): number {
  if (!window || isInWindow(window, now)) return 0;
  const { day, minute } = localTime(window, now);
  const start = minutesOf(window.start);
  const today = ORDER.indexOf(day);
  for (let ahead = 0; ahead <= 7; ahead++) {
    const candidate = ORDER[(today + ahead) % 7] as Weekday;
    if (!window.days.includes(candidate)) continue;
    const minutes = ahead * 1440 + start - minute;
    if (minutes > 0) return minutes * 60_000 - now.getUTCSeconds() * 1000 - now.getUTCMilliseconds();
  }
  return 7 * 1440 * 60_000;
}
