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
 * `run` answers one result per item, in order; when it throws, every item of the batch rejects
 * with that error.
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
}): (item: I) => Promise<O> {
  type Waiting = { item: I; resolve: (value: O) => void; reject: (error: unknown) => void };
  const { inFlight, max, run, gather = false, spillAt = 1 } = options;
  let running = 0;
  let queue: Waiting[] = [];
  let gathering = false;

  const next = () => {
    while (running < inFlight && queue.length >= (running === 0 ? 1 : spillAt)) {
      const batch = queue.slice(0, max);
      queue = queue.slice(batch.length);
      running++;
      // The slot is handed on before the batch's callers hear their results.
      const settle = (deliver: () => void) => {
        running--;
        next();
        deliver();
      };
      run(batch.map((waiting) => waiting.item)).then(
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
    if (!gather) return next();
    if (gathering) return;
    gathering = true;
    setImmediate(() => {
      gathering = false;
      next();
    });
  };

  return (item) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      start();
    });
}
