import { constants, PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';
import { openSessionsByKind } from '@/lib/devices/sessions';
import { log } from '@/lib/log';

/** Share of the heap's limit still in use after a full collection past which the heap is the limit. */
export const HEAP_WARN_SHARE = 0.85;
/** Live heap one open phone connection holds (a waiting claim or an event stream), measured: bench/connections.ts. */
export const HEAP_KB_PER_CONNECTION = 32;
const WARN_EVERY_MS = 60_000;

type HeapReading = { usedBytes: number; limitBytes: number; streams: number; polls: number };

/**
 * The log line that says the heap is the limit, or nothing: what is left after a full collection is
 * live, so more than HEAP_WARN_SHARE of the limit means the next connections or requests run the
 * collector without end (and then the process dies of it). It names the phones held open and
 * the HEAP_MB they need.
 */
export function heapWarning({ usedBytes, limitBytes, streams, polls }: HeapReading): string | undefined {
  if (usedBytes < limitBytes * HEAP_WARN_SHARE) return undefined;
  const share = Math.round((usedBytes / limitBytes) * 100);
  const connections = streams + polls;
  const needMb =
    Math.ceil((usedBytes / 2 ** 20 / HEAP_WARN_SHARE + (connections * HEAP_KB_PER_CONNECTION) / 1024 / 4) / 64) * 64;
  return (
    `the heap is ${share} % of its limit (${Math.round(limitBytes / 2 ** 20)} MB) after a full collection, ` +
    `with ${connections} phone connections open (${streams} event streams, ${polls} waiting claims, about ` +
    `${HEAP_KB_PER_CONNECTION} KB each): raise HEAP_MB (to ${needMb} or more) or spread the phones over more instances`
  );
}

/**
 * Watches every full garbage collection and logs `heapWarning` at most once a minute. Returns its stop.
 */
export function watchHeap(): () => void {
  let warnedAt = 0;
  const observer = new PerformanceObserver((list) => {
    const major = list
      .getEntries()
      .some((entry) => (entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR);
    if (!major || Date.now() - warnedAt < WARN_EVERY_MS) return;
    const heap = v8.getHeapStatistics();
    const { stream, poll } = openSessionsByKind();
    const warning = heapWarning({
      usedBytes: heap.used_heap_size,
      limitBytes: heap.heap_size_limit,
      streams: stream,
      polls: poll,
    });
    if (!warning) return;
    warnedAt = Date.now();
    log.warn(
      {
        heapUsedMb: Math.round(heap.used_heap_size / 2 ** 20),
        heapLimitMb: Math.round(heap.heap_size_limit / 2 ** 20),
      },
      warning,
    );
  });
  observer.observe({ entryTypes: ['gc'] });
  return () => observer.disconnect();
}
