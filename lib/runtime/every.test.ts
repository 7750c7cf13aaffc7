import { afterEach, describe, expect, it, vi } from 'vitest';
import { everyFromRandomPhase } from './every';

describe('everyFromRandomPhase', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('calls first at a random point of the first period, then once every period, until stopped', () => {
    vi.useFakeTimers();
    const phases = [0.25, 0.75];
    vi.spyOn(Math, 'random').mockImplementation(() => phases.shift() ?? 0);
    const early: number[] = [];
    const late: number[] = [];
    const stopEarly = everyFromRandomPhase(() => early.push(Date.now()), 1000);
    const stopLate = everyFromRandomPhase(() => late.push(Date.now()), 1000);
    const start = Date.now();
    vi.advanceTimersByTime(3000);
    // Two opened together tick apart: at a quarter and at three quarters of each period.
    expect(early.map((at) => at - start)).toEqual([250, 1250, 2250]);
    expect(late.map((at) => at - start)).toEqual([750, 1750, 2750]);
    stopEarly();
    stopLate();
    vi.advanceTimersByTime(3000);
    expect(early).toHaveLength(3);
    expect(late).toHaveLength(3);
  });

  it('stops before its first call as well', () => {
    vi.useFakeTimers();
    const calls: number[] = [];
    const stop = everyFromRandomPhase(() => calls.push(1), 1000);
    stop();
    vi.advanceTimersByTime(5000);
    expect(calls).toEqual([]);
  });
});
