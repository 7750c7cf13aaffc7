import { afterEach, describe, expect, it } from 'vitest';
import { beginShutdown, onShutdown, resetShutdownForTests, shutdownSignal, untilShutdown } from './lifecycle';

afterEach(() => resetShutdownForTests());

/** How many listeners an EventTarget holds for `abort` (Node's own count, as the warning uses it). */
function abortListeners(signal: AbortSignal): number {
  const symbol = Object.getOwnPropertySymbols(signal).find((s) => s.description === 'kEvents');
  const events = symbol ? (signal as unknown as Record<symbol, Map<string, { size: number }>>)[symbol] : undefined;
  return events?.get('abort')?.size ?? 0;
}

describe('onShutdown', () => {
  it('calls each callback once when the shutdown begins, and not one taken back', () => {
    const calls: string[] = [];
    onShutdown(() => calls.push('a'));
    const takeBack = onShutdown(() => calls.push('b'));
    takeBack();
    beginShutdown();
    beginShutdown();
    expect(calls).toEqual(['a']);
  });

  it('calls a callback at once when the shutdown has begun', () => {
    beginShutdown();
    let called = 0;
    onShutdown(() => called++);
    expect(called).toBe(1);
  });

  it('keeps one listener on the shutdown signal, however many callbacks', () => {
    const takeBacks = Array.from({ length: 100 }, () => onShutdown(() => {}));
    expect(abortListeners(shutdownSignal())).toBe(1);
    for (const takeBack of takeBacks) takeBack();
  });

  it('follows a signal replaced for tests', () => {
    onShutdown(() => {});
    resetShutdownForTests();
    let called = 0;
    onShutdown(() => called++);
    beginShutdown();
    expect(called).toBe(1);
  });
});

describe('untilShutdown', () => {
  it('aborts when any of its signals does, and lets go of them when released', () => {
    const request = new AbortController();
    const session = new AbortController();
    const ends = untilShutdown(request.signal, undefined, session.signal);
    expect(ends.signal.aborted).toBe(false);
    expect(abortListeners(request.signal)).toBe(1);
    session.abort();
    expect(ends.signal.aborted).toBe(true);
    ends.release();
    expect(abortListeners(request.signal)).toBe(0);
    expect(abortListeners(session.signal)).toBe(0);
  });

  it('aborts when the shutdown begins, and not after it is released', () => {
    const kept = untilShutdown();
    const released = untilShutdown();
    released.release();
    beginShutdown();
    expect(kept.signal.aborted).toBe(true);
    expect(released.signal.aborted).toBe(false);
  });

  it('is aborted from the start when a signal already is', () => {
    const ends = untilShutdown(AbortSignal.abort());
    expect(ends.signal.aborted).toBe(true);
    ends.release();
  });
});
