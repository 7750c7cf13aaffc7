/**
 * Calls `fn` every `periodMs`, the first time at a random point of the first period: the streams that
 * opened together (every phone reconnecting after a restart) then tick apart, not all within the
 * minute they reconnected in, once every period for as long as they stay open. Both timers are
 * intervals (the first cleared when it fires), one kind of timer for the tests' fake clock to drive.
 */
export function everyFromRandomPhase(fn: () => unknown, periodMs: number): () => void {
  let timer = setInterval(() => {
    clearInterval(timer);
    timer = setInterval(fn, periodMs);
    void fn();
  }, Math.random() * periodMs);
  return () => clearInterval(timer);
}
