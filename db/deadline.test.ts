import { describe, expect, it } from 'vitest';
import { currentDeadline, leftOf, outsideDeadline, pausingDeadline, withDeadline } from './deadline';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a request deadline', () => {
  it('is what the work and its continuations see, ends with the work, and is absent outside it', async () => {
    expect(currentDeadline()).toBeUndefined();
    let later: Promise<unknown> | undefined;
    await withDeadline(1_000, async () => {
      const deadline = currentDeadline();
      expect(deadline?.ms).toBe(1_000);
      expect(leftOf(deadline!)).toBeGreaterThan(900);
      expect(outsideDeadline(() => currentDeadline())).toBeUndefined();
      // Work that goes on after the answer (a stream) keeps the database's own bounds.
      later = pause(20).then(() => currentDeadline());
    });
    expect(await later).toBeUndefined();
  });

  it('moves on by a wait that is not the database’s (a long-poll)', async () => {
    await withDeadline(100, async () => {
      await pausingDeadline(pause(200));
      const deadline = currentDeadline();
      expect(deadline).toBeDefined();
      expect(leftOf(deadline!)).toBeGreaterThan(50);
      await pause(120);
      expect(leftOf(deadline!)).toBe(0);
    });
  });
});
