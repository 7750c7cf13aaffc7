import { ApiError, type DeviceClient, type WireMessage } from './client';

export type RunOptions = {
  phone: string;
  /** Share of messages that end `failed` instead of `delivered` (0..1). */
  failureRate: number;
  /** Pause before each report, as a real phone and carrier take time. */
  delayMs: number;
  /**
   * How long a claimed message waits on the phone before it is sent: a cancel arriving in that time
   * (the claim answer's `cancel`) drops it and reports `cancelled`.
   */
  holdMs?: number;
  /** Long-poll wait of each claim, seconds (0..30). */
  waitSeconds: number;
  limit: number;
  heartbeatIntervalMs: number;
  /** Starting battery level; it drains one point per heartbeat and recharges at 15. */
  battery: number;
  /** SIM cards the phone reports with its heartbeats (slots 1..n); left out, it reports none. */
  sims?: number;
  signal: AbortSignal;
  random?: () => number;
  log?: (line: string) => void;
};

export type RunStats = { claimed: number; delivered: number; failed: number; cancelled: number; heartbeats: number };

/** Waits `ms`, or less when `signal` aborts: the simulated phone's pauses. */
export const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted || ms <= 0) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });

/**
 * How a status report that failed is tried again, as the SMSGate app's SendStateWorker does: up to
 * `attempts` in all, waiting `firstDelayMs` after the first failure and twice as long after each
 * next one, at most `maxDelayMs`.
 */
export type ReportRetry = { attempts: number; firstDelayMs: number; maxDelayMs: number };

export const REPORT_RETRY: ReportRetry = { attempts: 10, firstDelayMs: 1_000, maxDelayMs: 30_000 };

/**
 * Whether a failed report may succeed later: the server could not be reached or answered 5xx or 429
 * (an instance that died, a database away). Any other answer is the server's word on the report.
 */
function worthRetrying(error: unknown): boolean {
  return !(error instanceof ApiError) || error.status >= 500 || error.status === 429;
}

/** `report()`, tried again after a failure worth retrying (`ReportRetry`) until it succeeds or `signal` aborts. */
export async function reportWithRetry<T>(
  report: () => Promise<T>,
  options: { signal: AbortSignal; retry?: ReportRetry; log?: (line: string) => void },
): Promise<T> {
  const retry = options.retry ?? REPORT_RETRY;
  for (let attempt = 1; ; attempt++) {
    try {
      return await report();
    } catch (error) {
      if (attempt >= retry.attempts || !worthRetrying(error) || options.signal.aborted) throw error;
      const delayMs = Math.min(retry.firstDelayMs * 2 ** (attempt - 1), retry.maxDelayMs);
      options.log?.(`report failed (${(error as Error).message}); attempt ${attempt + 1} in ${delayMs} ms`);
      await sleep(delayMs, options.signal);
    }
  }
}

/**
 * Sends one claimed message: `sent`, then `delivered` or (at the failure rate) `failed`. A report
 * that fails is tried again (`reportWithRetry`), so a message does not stay `sent` because one
 * report met an instance that was going away.
 */
export async function deliver(
  client: DeviceClient,
  message: WireMessage,
  options: Pick<RunOptions, 'failureRate' | 'delayMs' | 'signal' | 'random' | 'log'> & { retry?: ReportRetry },
): Promise<'delivered' | 'failed'> {
  const random = options.random ?? Math.random;
  const report = (status: 'sent' | 'delivered' | 'failed', error?: string) =>
    reportWithRetry(() => client.reportStatus(message.id, status, error), options);
  await sleep(options.delayMs, options.signal);
  if (random() < options.failureRate) {
    await report('failed', 'simulated carrier failure');
    return 'failed';
  }
  await report('sent');
  await sleep(options.delayMs, options.signal);
  await report('delivered');
  return 'delivered';
}

/**
 * The phone's main loop until `signal` aborts: heartbeats with a draining battery, long-poll
 * claims, and a report for every claimed message. Errors are logged and retried after a pause,
 * as an app on a flaky network would.
 */
export async function runDevice(client: DeviceClient, options: RunOptions): Promise<RunStats> {
  const log = options.log ?? (() => {});
  const stats: RunStats = { claimed: 0, delivered: 0, failed: 0, cancelled: 0, heartbeats: 0 };
  const holdMs = options.holdMs ?? 0;
  /** Claimed and not sent yet, with when each may go. */
  const held: Array<{ message: WireMessage; sendAt: number }> = [];
  let battery = options.battery;
  let nextHeartbeat = 0;
  while (!options.signal.aborted) {
    try {
      if (Date.now() >= nextHeartbeat) {
        await client.heartbeat(options.phone, battery, 'online', options.sims);
        stats.heartbeats += 1;
        log(`heartbeat: online, battery ${battery}%`);
        battery = battery <= 15 ? 100 : battery - 1;
        nextHeartbeat = Date.now() + options.heartbeatIntervalMs;
      }
      const nextSend = held.length > 0 ? Math.min(...held.map((entry) => entry.sendAt)) : Number.POSITIVE_INFINITY;
      const waitSeconds = Math.max(
        0,
        Math.min(options.waitSeconds, Math.floor((Math.min(nextHeartbeat, nextSend) - Date.now()) / 1000)),
      );
      const answer = await client.claimWithCancels({ limit: options.limit, waitSeconds, signal: options.signal });
      stats.claimed += answer.data.length;
      for (const id of answer.cancel) {
        const index = held.findIndex((entry) => entry.message.id === id);
        if (index < 0) continue; // already sent: its own reports follow
        held.splice(index, 1);
        await client.reportStatus(id, 'cancelled');
        stats.cancelled += 1;
        log(`cancelled: ${id}`);
      }
      const now = Date.now();
      // A message handed out again (its claim's answer was lost) is held once.
      const fresh = answer.data.filter((message) => !held.some((entry) => entry.message.id === message.id));
      held.push(...fresh.map((message) => ({ message, sendAt: now + holdMs })));
      const due = held.filter((entry) => entry.sendAt <= Date.now());
      if (due.length === 0 && held.length > 0) await sleep(Math.min(250, holdMs), options.signal);
      for (const { message } of due) {
        held.splice(
          held.findIndex((entry) => entry.message.id === message.id),
          1,
        );
        const outcome = await deliver(client, message, options);
        stats[outcome] += 1;
        log(`${outcome}: ${message.id} to ${message.to}${message.sim ? ` from SIM ${message.sim}` : ''}`);
      }
    } catch (error) {
      if (options.signal.aborted) break;
      log(`error: ${error instanceof ApiError || error instanceof Error ? error.message : String(error)}`);
      await sleep(2000, options.signal);
    }
  }
  return stats;
}
