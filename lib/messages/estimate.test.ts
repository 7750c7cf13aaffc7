import { describe, expect, it } from 'vitest';
import { drainEnd } from './estimate';
import type { DispatchCounts, PacingLimits } from './pacing';

const NONE: DispatchCounts = {
  lastMinute: 0,
  lastHour: 0,
  today: 0,
  oldestInMinute: null,
  oldestInHour: null,
  latest: null,
};
const start = new Date('2026-03-02T10:00:00.000Z');
const limits = (overrides: Partial<PacingLimits> = {}): PacingLimits => ({
  messagesPerMinute: 20,
  hourlyCap: null,
  dailyCap: null,
  jitterSeconds: 0,
  ...overrides,
});
const minutesAfterStart = (end: Date | undefined) => ((end?.getTime() ?? Number.NaN) - start.getTime()) / 60_000;

describe('drainEnd', () => {
  it('hands out a minute’s worth at once, then one batch a minute', () => {
    expect(minutesAfterStart(drainEnd({ limits: limits(), counts: NONE, window: null, messages: 100, start }))).toBe(4);
    expect(minutesAfterStart(drainEnd({ limits: limits(), counts: NONE, window: null, messages: 20, start }))).toBe(0);
  });

  it('waits for the rolling hour under an hourly cap', () => {
    const end = drainEnd({ limits: limits({ hourlyCap: 30 }), counts: NONE, window: null, messages: 40, start });
    expect(minutesAfterStart(end)).toBe(60);
  });

  it('counts what the phone was handed already', () => {
    const counts = {
      ...NONE,
      lastMinute: 20,
      lastHour: 20,
      today: 20,
      oldestInMinute: new Date(start.getTime() - 30_000),
    };
    expect(minutesAfterStart(drainEnd({ limits: limits(), counts, window: null, messages: 20, start }))).toBe(0.5);
  });

  it('goes on the next UTC day past a daily cap', () => {
    const end = drainEnd({ limits: limits({ dailyCap: 10 }), counts: NONE, window: null, messages: 15, start });
    expect(end?.toISOString()).toBe('2026-03-03T00:00:00.000Z');
  });

  it('spaces messages by half the jitter on average', () => {
    const end = drainEnd({ limits: limits({ jitterSeconds: 60 }), counts: NONE, window: null, messages: 5, start });
    expect(minutesAfterStart(end)).toBe(2);
  });

  it('waits for the send window to open', () => {
    const window = { time_zone: 'UTC', days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '11:00', end: '17:00' };
    const end = drainEnd({ limits: limits(), counts: NONE, window, messages: 5, start });
    expect(end?.toISOString()).toBe('2026-03-02T11:00:00.000Z');
  });
});
