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

/** Drives load for `seconds`: what it achieved, and how many requests it made. */
export type Driver = (seconds: number) => Promise<{ load: Load; requests: number }>;

/** A scenario of `interleaved`: POSTs to `url`, or its own driver (the database's ceiling, bench/db-ceiling.ts). */
export type InterleavedScenario = ({ url: string; next: NextRequest } | { drive: Driver }) & { pid?: number };

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

/** CPU time per request, in µs: the server's main thread, and all of PostgreSQL's processes on this machine. */
export type CpuPerRequest = {
  server_main_us: number;
  postgres_us: number;
  /** The share of the time the server's main thread was on a CPU (1: never idle nor waiting for one). */
  server_main_busy: number;
  /**
   * The share of the time it was ready to run but waited for a CPU that other processes had (the
   * load generator, PostgreSQL): not on a CPU and yet not idle. The rest of the time it was idle.
   */
  server_main_waiting: number;
  /** The share of all the machine's CPUs' time that no process used. */
  machine_idle: number;
  /** CPU time of the load generator (this process, every thread): what it takes of the shared cores. */
  loadgen_us: number;
};

/** Clock ticks of user and system time in a /proc/…/stat line (fields 14 and 15), as ms. */
function statMs(file: string): number {
  const raw = fs.readFileSync(file, 'utf8');
  const fields = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

type CpuSample = { main: number; postgres: number; mainWaited: number; idle: number; all: number; loadgen: number };

/** The server's main thread's time waiting for a CPU so far, in ms (/proc/…/schedstat, field 2, ns). */
function waitedMs(pid: number): number {
  return Number(fs.readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[1]) / 1e6;
}

/** This process's CPU time so far (user and system, every thread), in ms. */
function loadgenMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** The machine's CPU time so far, idle and in all, in clock ticks (/proc/stat's first line). */
function machineTicks(): { idle: number; all: number } {
  const ticks = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is counted in user already)
  const all = ticks.slice(0, 8).reduce((sum, value) => sum + value, 0);
  return { idle: (ticks[3] ?? 0) + (ticks[4] ?? 0), all };
}

/**
 * CPU ms so far of the server's main thread and of every process named postgres, the main thread's
 * wait for a CPU, and the machine's idle and total ticks; NaN off Linux.
 */
function cpuSample(pid: number | undefined): CpuSample {
  try {
    if (!pid) throw new Error('no pid');
    let postgresMs = 0;
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        if (fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'postgres')
          postgresMs += statMs(`/proc/${entry}/stat`);
      } catch {
        // The process ended meanwhile.
      }
    }
    return {
      main: statMs(`/proc/${pid}/task/${pid}/stat`),
      postgres: postgresMs,
      mainWaited: waitedMs(pid),
      ...machineTicks(),
      loadgen: loadgenMs(),
    };
  } catch {
    return {
      main: Number.NaN,
      postgres: Number.NaN,
      mainWaited: Number.NaN,
      idle: Number.NaN,
      all: Number.NaN,
      loadgen: loadgenMs(),
    };
  }
}

/** The length of one slice of `interleaved`. */
export const SLICE_S = 2;

/**
 * Drives each scenario for `duration` seconds in all, in turns of SLICE_S seconds (a, b, c, a, b,
 * c, …), so that scenarios compared by a ratio run in the same minutes: on a shared machine the
 * speed drifts by more than the differences being measured, and a scenario run after another would
 * carry the drift into the ratio. req/s is the requests over the time; p50 and p99 are the
 * slices' own, weighted by their requests (close to, not exactly, the percentile of the whole).
 * CPU is the server `serverPid`'s, or a scenario's own `pid` (bench/ab.ts drives two servers).
 */
export async function interleaved<K extends string>(
  scenarios: Record<K, InterleavedScenario>,
  serverPid: number | undefined,
  duration = DURATION_S,
): Promise<{ loads: Record<K, Load>; cpu: Record<K, CpuPerRequest> }> {
  type Total = {
    requests: number;
    seconds: number;
    p50: number;
    p99: number;
    errors: number;
    main: number;
    pg: number;
    waited: number;
    idle: number;
    all: number;
    loadgen: number;
  };
  const totals = new Map<string, Total>();
  for (let done = 0; done < duration; done += SLICE_S) {
    const seconds = Math.min(SLICE_S, duration - done);
    for (const [name, scenario] of Object.entries<InterleavedScenario>(scenarios)) {
      const pid = scenario.pid ?? serverPid;
      const before = cpuSample(pid);
      const { load: slice, requests } =
        'drive' in scenario ? await scenario.drive(seconds) : await drive(scenario.url, scenario.next, seconds);
      const after = cpuSample(pid);
      const total = totals.get(name) ?? {
        requests: 0,
        seconds: 0,
        p50: 0,
        p99: 0,
        errors: 0,
        main: 0,
        pg: 0,
        waited: 0,
        idle: 0,
        all: 0,
        loadgen: 0,
      };
      total.main += after.main - before.main;
      total.pg += after.postgres - before.postgres;
      total.waited += after.mainWaited - before.mainWaited;
      total.idle += after.idle - before.idle;
      total.all += after.all - before.all;
      total.loadgen += after.loadgen - before.loadgen;
      total.requests += requests;
      total.seconds += seconds;
      total.p50 += slice.p50_ms * requests;
      total.p99 += slice.p99_ms * requests;
      total.errors += slice.errors;
      totals.set(name, total);
    }
  }
  const entries = [...totals];
  const perRequest = (ms: number, total: Total) => Math.round((ms * 1000) / Math.max(1, total.requests));
  return {
    loads: Object.fromEntries(
      entries.map(([name, total]): [string, Load] => [
        name,
        {
          rps: total.requests / total.seconds,
          p50_ms: total.p50 / Math.max(1, total.requests),
          p99_ms: total.p99 / Math.max(1, total.requests),
          errors: total.errors,
        },
      ]),
    ) as Record<K, Load>,
    cpu: Object.fromEntries(
      entries.map(([name, total]): [string, CpuPerRequest] => [
        name,
        {
          server_main_us: perRequest(total.main, total),
          postgres_us: perRequest(total.pg, total),
          server_main_busy: Math.round((100 * total.main) / (total.seconds * 1000)) / 100,
          server_main_waiting: Math.round((100 * total.waited) / (total.seconds * 1000)) / 100,
          machine_idle: Math.round((100 * total.idle) / Math.max(1, total.all)) / 100,
          loadgen_us: perRequest(total.loadgen, total),
        },
      ]),
    ) as Record<K, CpuPerRequest>,
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

/**
 * ANALYZE messages in the server's database (app/api/bench/analyze), as autovacuum, or the embedded
 * database's maintenance pass, would within a minute of rows arriving: a database in use has
 * statistics, and without them a send's request_id check read every message of the account.
 */
export async function analyze(baseUrl: string): Promise<void> {
  const res = await fetch(`${baseUrl}/api/bench/analyze`, { method: 'POST' });
  if (res.status !== 204) throw new Error(`analyze answered ${res.status}`);
}
