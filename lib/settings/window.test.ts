import { describe, expect, it } from 'vitest';
import { isInWindow, isTimeZone, msUntilOpen } from './window';

const weekdays = {
  time_zone: 'America/New_York',
  days: ['mon', 'tue', 'wed', 'thu', 'fri'] as const,
  start: '08:00',
  end: '21:00',
};
const window = { ...weekdays, days: [...weekdays.days] };

describe('send windows', () => {
  it('is open inside its hours on its days, in its own time zone', () => {
    // Wednesday 2026-11-25 14:00 UTC is 09:00 in New York.
    expect(isInWindow(window, new Date('2026-11-25T14:00:00Z'))).toBe(true);
    // 12:59 UTC is 07:59 there.
    expect(isInWindow(window, new Date('2026-11-25T12:59:00Z'))).toBe(false);
    // 21:00 local is closed (end excluded).
    expect(isInWindow(window, new Date('2026-11-26T02:00:00Z'))).toBe(false);
    // Saturday.
    expect(isInWindow(window, new Date('2026-11-28T15:00:00Z'))).toBe(false);
    expect(isInWindow(null, new Date())).toBe(true);
  });

  it('says when it opens next', () => {
    expect(msUntilOpen(window, new Date('2026-11-25T14:00:00Z'))).toBe(0);
    // 07:00 local Wednesday: one hour.
    expect(msUntilOpen(window, new Date('2026-11-25T12:00:00Z'))).toBe(60 * 60_000);
    // Saturday 10:00 local: Monday 08:00, 46 hours.
    expect(msUntilOpen(window, new Date('2026-11-28T15:00:00Z'))).toBe(46 * 60 * 60_000);
  });

  it('knows IANA time zones', () => {
    expect(isTimeZone('Europe/Berlin')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
  });
});
