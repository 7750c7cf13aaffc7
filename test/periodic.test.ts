// lib/runtime/periodic.ts: a pass that leaves work undone is followed by the next after `againMs`,
// not the interval; one that finishes waits the interval.
import { afterEach, describe, expect, it } from 'vitest';
import { type PassResult, startPeriodic } from '@/lib/runtime/periodic';
import { until } from './poll';
import { withTestDatabase } from './setup-db';

withTestDatabase();

const HOUR_MS = 3_600_000;
let stop: (() => Promise<void>) | undefined;

afterEach(async () => {
  await stop?.();
  stop = undefined;
});

describe('startPeriodic', () => {
  it('runs the next pass after againMs while work is left, then waits the interval', async () => {
    const answers: PassResult[] = [
      { changed: 0, workLeft: true },
      { changed: 0, workLeft: true },
      { changed: 0, workLeft: false },
    ];
    let passes = 0;
    stop = startPeriodic({
      name: 'catch-up test',
      intervalMs: HOUR_MS,
      againMs: 1,
      runAtStart: true,
      run: async () => answers[passes++] ?? { changed: 0, workLeft: false },
    });
    // Without againMs the second pass would come an hour later.
    await until(() => passes >= 3);
    await stop();
    stop = undefined;
    expect(passes).toBe(3);
  });

  it('waits the interval after a pass that left work when the task has no againMs', async () => {
    let passes = 0;
    stop = startPeriodic({
      name: 'no catch-up test',
      intervalMs: HOUR_MS,
      runAtStart: true,
      run: async () => {
        passes++;
        return { changed: 0, workLeft: true };
      },
    });
    await until(() => passes >= 1);
    await stop();
    stop = undefined;
    expect(passes).toBe(1);
  });
});
