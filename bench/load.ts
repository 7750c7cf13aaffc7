import fs from 'node:fs';
import autocannon from 'autocannon';

export const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);

export type Load = { rps: number; p50_ms: number; p99_ms: number; errors: number };

/** One request of a scenario: what autocannon sends next (a fresh key, body or request_id each time). */
export type NextRequest = () => { headers: Record<string, string>; body: string };

/**
 * Drives POSTs to `url` for `duration` seconds from this process (the load generator; the server is
 * its own process), each request built by `next`. Any non-2xx answer or socket error counts as an error.
 */
export async function load(url: string, next: NextRequest, duration = DURATION_S): Promise<Load> {
  const { pathname } = new URL(url);
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration,
    requests: [
      {
        method: 'POST',
        path: pathname,
        setupRequest: (request) => {
          const { headers, body } = next();
          return { ...request, headers: { 'content-type': 'application/json', ...headers }, body };
        },
      },
    ],
  });
  return {
    rps: result.requests.average,
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    errors: result.non2xx + result.errors,
  };
}

/** The server's resident memory, sampled every 250 ms while `work` runs; the highest value, in MB. */
export async function peakRss<T>(
  pid: number | undefined,
  work: () => Promise<T>,
): Promise<{ result: T; rssMb: number }> {
  let peak = 0;
  const sample = () => {
    if (!pid) return;
    try {
      const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      peak = Math.max(peak, kb / 1024);
    } catch {
      // Not Linux, or the process is gone: no sample.
    }
  };
  const timer = setInterval(sample, 250);
  try {
    sample();
    const result = await work();
    sample();
    return { result, rssMb: peak };
  } finally {
    clearInterval(timer);
  }
}

export const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))] ?? Number.NaN;

export async function post(url: string, headers: Record<string, string>, body: unknown): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

/**
 * The recipient of the n-th send: a different valid number each time (8 million before they
 * repeat), as an integrator's traffic would be, so that nothing kept by recipient flatters the
 * figures.
 */
export function recipient(n: number): string {
  const exchange = 200 + (Math.floor(n / 10_000) % 800);
  return `+1415${exchange}${String(n % 10_000).padStart(4, '0')}`;
}
