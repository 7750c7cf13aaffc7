import { afterEach, describe, expect, it, vi } from 'vitest';
import { currentDeadline, withDeadline } from '@/db/deadline';
import { batcher } from './batch';

/** A `run` whose batches end when the test says so. */
function controlledRun() {
  const batches: Array<{ items: number[]; finish: () => void; fail: (error: Error) => void }> = [];
  const run = (items: number[]) =>
    new Promise<string[]>((resolve, reject) => {
      batches.push({ items, finish: () => resolve(items.map((item) => `done ${item}`)), fail: reject });
    });
  return { batches, run };
}

describe('natural batching', () => {
  it('sends an item at once when a slot is free, and what arrives meanwhile together next', async () => {
    const { batches, run } = controlledRun();
    const submit = batcher({ inFlight: 1, max: 10, run });
    const first = submit(1);
    expect(batches.map((batch) => batch.items)).toEqual([[1]]);
    const waiting = [submit(2), submit(3), submit(4)];
    expect(batches).toHaveLength(1);
    batches[0]?.finish();
    expect(await first).toBe('done 1');
    expect(batches.map((batch) => batch.items)).toEqual([[1], [2, 3, 4]]);
    batches[1]?.finish();
    expect(await Promise.all(waiting)).toEqual(['done 2', 'done 3', 'done 4']);
  });

  it('keeps `inFlight` batches running and none larger than `max`', async () => {
    const { batches, run } = controlledRun();
    const submit = batcher({ inFlight: 2, max: 2, run });
    const all = [1, 2, 3, 4, 5, 6].map((item) => submit(item));
    expect(batches.map((batch) => batch.items)).toEqual([[1], [2]]);
    batches[0]?.finish();
    await all[0];
    expect(batches.map((batch) => batch.items)).toEqual([[1], [2], [3, 4]]);
    batches[1]?.finish();
    await all[1];
    expect(batches.map((batch) => batch.items)).toEqual([[1], [2], [3, 4], [5, 6]]);
    batches[2]?.finish();
    batches[3]?.finish();
    expect(await Promise.all(all)).toEqual([1, 2, 3, 4, 5, 6].map((item) => `done ${item}`));
  });

  it('with `spillAt`, starts a batch beside a running one only once that many items wait', async () => {
    const { batches, run } = controlledRun();
    const submit = batcher({ inFlight: 2, max: 10, spillAt: 3, run });
    const all = [submit(1), submit(2), submit(3)];
    // 1 goes at once; 2 and 3 wait for it rather than start a second lane.
    expect(batches.map((batch) => batch.items)).toEqual([[1]]);
    all.push(submit(4));
    // Three wait: the first lane is not keeping up, so a second batch takes them.
    expect(batches.map((batch) => batch.items)).toEqual([[1], [2, 3, 4]]);
    all.push(submit(5));
    expect(batches).toHaveLength(2);
    batches[0]?.finish();
    await all[0];
    // One lane still runs, and one item waiting does not open another.
    expect(batches).toHaveLength(2);
    batches[1]?.finish();
    await all[1];
    expect(batches.map((batch) => batch.items)).toEqual([[1], [2, 3, 4], [5]]);
    batches[2]?.finish();
    expect(await Promise.all(all)).toEqual([1, 2, 3, 4, 5].map((item) => `done ${item}`));
  });

  it('rejects the items of a failed batch only, and goes on with the next', async () => {
    const { batches, run } = controlledRun();
    const submit = batcher({ inFlight: 1, max: 10, run });
    const first = submit(1);
    const second = submit(2);
    batches[0]?.fail(new Error('lock timeout'));
    await expect(first).rejects.toThrow('lock timeout');
    batches[1]?.finish();
    expect(await second).toBe('done 2');
  });

  it('with `windowMs`, starts a batch that long after its first item, with all that came meanwhile', async () => {
    const { batches, run } = controlledRun();
    const submit = batcher({ inFlight: 1, max: 10, run, windowMs: 50 });
    const started = performance.now();
    const first = submit(1);
    await new Promise((resolve) => setImmediate(resolve));
    const second = submit(2);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const third = submit(3);
    expect(batches).toHaveLength(0);
    await vi.waitFor(() => expect(batches).toHaveLength(1), { timeout: 2000, interval: 5 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    expect(batches[0]?.items).toEqual([1, 2, 3]);
    batches[0]?.finish();
    expect(await Promise.all([first, second, third])).toEqual(['done 1', 'done 2', 'done 3']);
    // The next item opens a window of its own.
    const fourth = submit(4);
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toHaveLength(1);
    await vi.waitFor(() => expect(batches).toHaveLength(2), { timeout: 2000, interval: 5 });
    batches[1]?.finish();
    expect(await fourth).toBe('done 4');
  });

  it('with `gather`, waits for the event loop to take in arrivals before it starts a batch', async () => {
    const { batches, run } = controlledRun();
    const submit = batcher({ inFlight: 1, max: 10, run, gather: true });
    const first = [submit(1), submit(2)];
    // Nothing starts in this turn of the event loop: a database on this thread would run the first
    // item alone before anything else could arrive.
    expect(batches).toHaveLength(0);
    // The batcher's setImmediate was queued before this one, so it has run when this resolves.
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches.map((batch) => batch.items)).toEqual([[1, 2]]);
    const later = submit(3);
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toHaveLength(1);
    const more = submit(4);
    batches[0]?.finish();
    expect(await Promise.all(first)).toEqual(['done 1', 'done 2']);
    // What queued while a batch ran goes as soon as it ends.
    expect(batches.map((batch) => batch.items)).toEqual([
      [1, 2],
      [3, 4],
    ]);
    batches[1]?.finish();
    expect(await Promise.all([later, more])).toEqual(['done 3', 'done 4']);
  });

  describe('with `halve`', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('takes at most half of the recent peak of waiting and running items, and forgets an old peak', async () => {
      vi.useFakeTimers({ toFake: ['performance'] });
      const { batches, run } = controlledRun();
      const submit = batcher({ inFlight: 1, max: 10, run, halve: true });
      const items = (batch: number) => batches[batch]?.items;
      const finish = async (batch: number, first: Promise<string>) => {
        batches[batch]?.finish();
        await first;
      };
      // Alone, an item goes at once; then ten are in (one running, nine waiting): halves of five.
      const all = Array.from({ length: 10 }, (_, i) => submit(i + 1));
      expect(items(0)).toEqual([1]);
      await finish(0, all[0]!);
      expect(items(1)).toEqual([2, 3, 4, 5, 6]);
      await finish(1, all[1]!);
      expect(items(2)).toEqual([7, 8, 9, 10]);
      await finish(2, all[6]!);
      // Within the second, that peak still holds: four waiting go together.
      const again = [11, 12, 13, 14, 15].map((item) => submit(item));
      await finish(3, again[0]!);
      expect(items(4)).toEqual([12, 13, 14, 15]);
      await finish(4, again[1]!);
      // Two seconds on it is forgotten: five in (one running, four waiting) make halves of three.
      vi.advanceTimersByTime(2_500);
      const later = [16, 17, 18, 19, 20].map((item) => submit(item));
      expect(items(5)).toEqual([16]);
      await finish(5, later[0]!);
      expect(items(6)).toEqual([17, 18, 19]);
      await finish(6, later[1]!);
      expect(items(7)).toEqual([20]);
      batches[7]?.finish();
      expect(await Promise.all([...all, ...again, ...later])).toEqual(
        Array.from({ length: 20 }, (_, i) => `done ${i + 1}`),
      );
    });

    it('lets items go one by one under a light load', async () => {
      const { batches, run } = controlledRun();
      const submit = batcher({ inFlight: 1, max: 10, run, halve: true });
      const first = submit(1);
      const second = submit(2);
      batches[0]?.finish();
      await first;
      expect(batches.map((batch) => batch.items)).toEqual([[1], [2]]);
      batches[1]?.finish();
      expect(await second).toBe('done 2');
    });
  });

  it('refuses a run that answers the wrong number of results', async () => {
    const submit = batcher({ inFlight: 1, max: 10, run: async () => [] as string[] });
    await expect(submit(1)).rejects.toThrow('0 results for 1 items');
  });

  it("bounds each caller's wait by its own request's deadline, runs batches outside any, and drops an item whose deadline passed while it waited", async () => {
    const { batches, run } = controlledRun();
    const deadlinesSeen: unknown[] = [];
    const submit = batcher({
      inFlight: 1,
      max: 10,
      run: (items: number[]) => {
        deadlinesSeen.push(currentDeadline());
        return run(items);
      },
    });
    const started = performance.now();
    // The first item's batch hangs (a frozen database); the second waits behind it.
    const outcomes = await Promise.allSettled([withDeadline(100, () => submit(1)), withDeadline(150, () => submit(2))]);
    expect(performance.now() - started).toBeLessThan(1_000);
    for (const outcome of outcomes) {
      expect(outcome).toMatchObject({ status: 'rejected', reason: { code: 'DATABASE_DEADLINE' } });
    }
    expect(deadlinesSeen).toEqual([undefined]);
    // The hung batch ends: the item that gave up waiting is not in the next one.
    const third = submit(3);
    batches[0]?.finish();
    await vi.waitFor(() => expect(batches.map((batch) => batch.items)).toEqual([[1], [3]]));
    batches[1]?.finish();
    expect(await third).toBe('done 3');
  });
});
