import { beforeDeadline, outsideDeadline } from '@/db';

/**
 * Natural batching, the application's group commit: an item handed in while a batch is running
 * waits, and all that wait (up to `max`) go together as the next batch when it ends. An item handed
 * in with nothing running goes at once, with whatever waits. There is no timer: under light load
 * every item goes alone and is not delayed; under load a batch carries what arrived during one
 * round trip, so the fixed cost of a statement (a socket write, a backend wake-up, parse-free
 * execution, a commit's WAL flush, a hot row's lock) is paid once per batch.
 *
 * Up to `inFlight` batches run at once, but a further one starts beside a running batch only when
 * `spillAt` items wait (default 1: at once). Below that, one lane keeps up and the waiters make the
 * next batch larger, which costs the database less than two small ones; past it, the lane is
 * saturated (or stuck on a lock) and another helps.
 *
 * With `halve`, a batch carries at most half of the items recently in the batcher (waiting or
 * running: the peak of the last one or two seconds), so that a steady load keeps two batches in
 * turn. Taking all that waited fell into lockstep under a closed load: with 16 callers, one batch
 * of 15 went to the database while the thread had one request to work on and then nothing (a batch
 * of 1 next, then 15 again: counted), so the thread idled for most of each big batch's round trip.
 * With halves it works on one batch's results while the database has the other.
 *
 * `run` answers one result per item, in order; when it throws, every item of the batch rejects
 * with that error.
 *
 * A batch serves several requests, so it runs outside any request's deadline (db/deadline.ts), with
 * the database's own bounds; each caller waits for its item only until its own deadline passes, and
 * then fails with DATABASE_DEADLINE: an item still waiting is dropped, one in a running batch may
 * still be done.
 */
export function batcher<I, O>(options: {
  inFlight: number;
  max: number;
  spillAt?: number;
  run: (items: I[]) => Promise<O[]>;
  /**
   * Start a batch only once the event loop has taken in what else has arrived (setImmediate), for a
   * database that runs on this thread: its statement holds the thread, so nothing can arrive while
   * it runs, and without the wait every batch would be one item.
   */
  gather?: boolean;
  /**
   * Start a batch only this long after the first item arrives, for work whose caller can wait that
   * long (an open stream's periodic look, a phone opening its connection): items that come at random
   * moments, each alone under natural batching, go as one statement per window. Replaces `gather`.
   */
  windowMs?: number;
  /** A batch of at most half the recent peak of waiting and running items (above). */
  halve?: boolean;
}): (item: I) => Promise<O> {
  type Waiting = { item: I; resolve: (value: O) => void; reject: (error: unknown) => void };
  const { inFlight, max, run, gather = false, windowMs, spillAt = 1, halve = false } = options;
  let running = 0;
  let runningItems = 0;
  let queue: Waiting[] = [];
  let gathering = false;
  // With `halve`: the peak of waiting and running items, in windows of a second (this one's and the last one's).
  let peak = 0;
  let previousPeak = 0;
  let windowStarted = performance.now();
  const notePeak = () => {
    const now = performance.now();
    if (now - windowStarted >= 1000) {
      previousPeak = now - windowStarted < 2000 ? peak : 0;
      peak = 0;
      windowStarted = now;
    }
    peak = Math.max(peak, queue.length + runningItems);
  };
  const batchSize = () => (halve ? Math.min(max, Math.max(1, Math.ceil(Math.max(peak, previousPeak) / 2))) : max);

  const next = () => {
    while (running < inFlight && queue.length >= (running === 0 ? 1 : spillAt)) {
      const batch = queue.slice(0, batchSize());
      queue = queue.slice(batch.length);
      running++;
      runningItems += batch.length;
      // The slot is handed on before the batch's callers hear their results.
      const settle = (deliver: () => void) => {
        running--;
        runningItems -= batch.length;
        next();
        deliver();
      };
      outsideDeadline(() => run(batch.map((waiting) => waiting.item))).then(
        (results) =>
          settle(() => {
            if (results.length !== batch.length) {
              const error = new Error(`batch: ${results.length} results for ${batch.length} items`);
              for (const waiting of batch) waiting.reject(error);
              return;
            }
            for (const [index, waiting] of batch.entries()) waiting.resolve(results[index] as O);
          }),
        (error: unknown) =>
          settle(() => {
            for (const waiting of batch) waiting.reject(error);
          }),
      );
    }
  };

  const start = () => {
    if (!gather && windowMs === undefined) return next();
    if (gathering) return;
    gathering = true;
    const open = () => {
      gathering = false;
      next();
    };
    if (windowMs === undefined) setImmediate(open);
    else setTimeout(open, windowMs).unref?.();
  };

  return (item) => {
    let waiting: Waiting | undefined;
    const answer = new Promise<O>((resolve, reject) => {
      waiting = { item, resolve, reject };
      queue.push(waiting);
      if (halve) notePeak();
      start();
    });
    // An item whose caller's deadline passed before its batch began is left out of it.
    return beforeDeadline(answer, () => {
      queue = queue.filter((other) => other !== waiting);
    });
  };
}
