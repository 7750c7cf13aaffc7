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
  const { load: measured } = await drive(url, next, duration);
  return measured;
}

async function drive(url: string, next: NextRequest, duration: number): Promise<{ load: Load; requests: number }> {
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
    load: {
      rps: result.requests.average,
      p50_ms: result.latency.p50,
      p99_ms: result.latency.p99,
      errors: result.non2xx + result.errors,
    },
    requests: result.requests.total,
  };
}

/** The length of one slice of `interleaved`. */
export const SLICE_S = 2;

/**
 * Drives each scenario for `duration` seconds in all, in turns of SLICE_S seconds (a, b, c, a, b,
 * c, …), so that scenarios compared by a ratio run in the same minutes: on a shared machine the
 * speed drifts by more than the differences being measured, and a scenario run after another would
 * carry the drift into the ratio. req/s is the requests over the time; p50 and p99 are the
 * slices' own, weighted by their requests (close to, not exactly, the percentile of the whole).
 */
export async function interleaved<K extends string>(
  scenarios: Record<K, { url: string; next: NextRequest }>,
  duration = DURATION_S,
): Promise<Record<K, Load>> {
  const totals = new Map<string, { requests: number; seconds: number; p50: number; p99: number; errors: number }>();
  for (let done = 0; done < duration; done += SLICE_S) {
    const seconds = Math.min(SLICE_S, duration - done);
    for (const [name, { url, next }] of Object.entries<{ url: string; next: NextRequest }>(scenarios)) {
      const { load: slice, requests } = await drive(url, next, seconds);
      const total = totals.get(name) ?? { requests: 0, seconds: 0, p50: 0, p99: 0, errors: 0 };
      total.requests += requests;
      total.seconds += seconds;
      total.p50 += slice.p50_ms * requests;
      total.p99 += slice.p99_ms * requests;
      total.errors += slice.errors;
      totals.set(name, total);
    }
  }
  return Object.fromEntries(
    [...totals].map(([name, total]): [string, Load] => [
      name,
      {
        rps: total.requests / total.seconds,
        p50_ms: total.p50 / Math.max(1, total.requests),
        p99_ms: total.p99 / Math.max(1, total.requests),
        errors: total.errors,
      },
    ]),
  ) as Record<K, Load>;
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
