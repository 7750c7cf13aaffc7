// The connections scenario of `npm run bench` (issue "Scale"): N phones paired as the SMSGate app
// holding GET /api/mobile/v1/events open, and N simulator phones long-polling the claim, against one
// `npm start` on PostgreSQL with BENCH_CONNECTIONS_PROCESSES web processes. Reports every web process's
// RSS, open file descriptors and event-loop delay (p99) and their sums, the database connections in use,
// CPU per idle connection per minute, the wake-up latency from a send's 201 to the phone's event or claim
// answer, and a reconnect storm (the server restarted under all N connections). The phones are held by
// load-generator processes of their own (bench/fleet.ts). Runnable alone: `npx tsx bench/connections.ts`.

import fs from 'node:fs';
import postgres from 'postgres';
import { hashSecret } from '../lib/auth/keys';
import { deviceKey, type Fleet, kindOf, now, startFleet } from './fleet';
import { percentile } from './load';
import { benchServerEnv, type Server, startServer } from './server';

/** Issue 50's targets; RSS is of all the server's processes together: 1 GB for each 10,000 phones begun. */
export const CONNECTION_TARGETS = { rss_mb_per_10k: 1024, wake_p99_ms: 250, event_loop_delay_p99_ms: 50 };
const rssTargetMb = (phones: number) => CONNECTION_TARGETS.rss_mb_per_10k * Math.max(1, Math.ceil(phones / 10_000));

/** Phones per account: a hosted gateway's accounts each hold a few. */
const PHONES_PER_ACCOUNT = 10;
const SENDS = Number(process.env.BENCH_CONNECTIONS_SENDS ?? 300);
const SENDS_PER_S = 10;
const IDLE_S = Number(process.env.BENCH_CONNECTIONS_IDLE_S ?? 60);
/** A scrape or a send that takes longer counts as failed: the bench reports rather than waits. */
const SCRAPE_TIMEOUT_MS = 30_000;
const SEND_TIMEOUT_MS = 30_000;
/** A wake-up slower than this is printed with what its phone was doing when the send came. */
const SLOW_WAKE_MS = 1000;

/** One of the server's processes: the primary (several web processes) or a web process, by its slot. */
export type ServerProcess = {
  pid: number;
  role: 'primary' | 'web';
  /** A web process's slot (the `process` label of its metrics); the primary has none. */
  slot?: number;
  rss_mb: number;
  open_fds: number;
  /** A web process's worst event-loop p99 of the idle minute and the sends. */
  event_loop_delay_p99_ms?: number;
};

export type ConnectionResults = {
  /**
   * N: connected phones, half SSE streams (even indexes) and half long-polls: this machine's hard limit
   * of 20,000 descriptors per process leaves no room for 10,000 of each in one web process.
   */
  phones: number;
  /** `npm start`'s web processes (WEB_CONCURRENCY); the figures below are of all of them together. */
  processes: number;
  connections: number;
  streams: number;
  long_polls: number;
  connected_at_end: number;
  dropped: number;
  /** RSS of every process of the server together (the primary's too, with several). */
  rss_mb: number;
  rss_target_mb: number;
  heap_used_mb: number;
  heap_limit_mb: number;
  open_fds: number;
  db_connections: number;
  /** The worst web process's. */
  event_loop_delay_p99_ms: number;
  cpu_ms_per_idle_connection_per_min: number;
  /** `missed`: not heard within 10 s; `refused`: the send itself failed (not 201, or no answer in 30 s). */
  wake_ms: {
    p50: number;
    p99: number;
    sends: number;
    missed: number;
    refused: number;
    /** The same by the kind of phone woken: an event stream's event, or a long-poll's claim answer. */
    by_kind: Record<'stream' | 'poll', { p50: number; p99: number; heard: number }>;
  };
  connect_s: number;
  /**
   * The load generators' own event-loop delay (the worst of them), over the idle minute and over the
   * sends: a wake-up is stamped when a load generator's loop reads it, so it is part of the wake-up figures.
   */
  load_generators_event_loop_ms?: Record<'idle' | 'sends', { p99: number; max: number }>;
  /** Garbage collections while idle and during the sends (V8's full and young-generation ones), with their mean pause. */
  gc: Record<'major' | 'minor', { count: number; ms_avg: number }>;
  reconnect: { phones: number; reconnected: number; seconds: number; status_5xx: number; refused_answers: number };
  server_errors: number;
  per_process: ServerProcess[];
};

type Check = [string, boolean, string];

/** The deterministic keys of the bench's accounts (base62 bodies of 40 characters). */
const accountKey = (a: number) => `sk_connbench${String(a).padStart(31, '0')}`;
const phoneNumber = (i: number) => `+1415${String(2_000_000 + i).padStart(7, '0')}`;

/** Accounts, default groups, devices, phones and API keys for 2N phones, written in a few statements. */
export async function seed(dbUrl: string, phones: number): Promise<void> {
  const sql = postgres(dbUrl, { max: 1, onnotice: () => {} });
  try {
    const accounts = Math.ceil(phones / PHONES_PER_ACCOUNT);
    await sql.begin(async (tx) => {
      await tx`insert into accounts (id, email)
        select md5('connbench-account-' || g)::uuid, 'connbench-' || g || '@example.test'
        from generate_series(0, ${accounts - 1}::int) g`;
      await tx`insert into phone_groups (account_id, name, name_key, is_default, balance)
        select md5('connbench-account-' || g)::uuid, 'Default', 'default', true, 1000000
        from generate_series(0, ${accounts - 1}::int) g`;
      await tx`insert into api_keys (account_id, name, key_hash, prefix)
        select md5('connbench-account-' || g)::uuid, 'bench', d.hash, left(d.key, 8)
        from generate_series(0, ${accounts - 1}::int) g
        join unnest(${Array.from({ length: accounts }, (_, a) => accountKey(a))}::text[],
                    ${Array.from({ length: accounts }, (_, a) => hashSecret(accountKey(a)))}::text[])
          with ordinality as d(key, hash, n) on d.n = g + 1`;
      const keys = Array.from({ length: phones }, (_, i) => hashSecret(deviceKey(i)));
      // Even phones are the SMSGate app's (an event stream), odd ones the simulator's (long-polls).
      await tx`insert into devices (id, phone_number, status, account_id, key_hash, key_prefix, kind, verified_at, activated_at)
        select md5('connbench-device-' || (d.n - 1))::uuid, '+1415' || lpad((2000000 + d.n - 1)::text, 7, '0'),
          'activated', md5('connbench-account-' || ((d.n - 1) / ${PHONES_PER_ACCOUNT}))::uuid, d.hash, 'dk_connb',
          case when (d.n - 1) % 2 = 0 then 'app' else 'simulator' end, now(), now()
        from unnest(${keys}::text[]) with ordinality as d(hash, n)`;
      await tx`insert into phones (account_id, group_id, phone, device_id, status, sim_verification, messages_per_minute)
        select d.account_id, g.id, d.phone_number, d.id, 'online', 'verified', 1000
        from devices d join phone_groups g on g.account_id = d.account_id
        where d.key_prefix = 'dk_connb'`;
    });
  } finally {
    await sql.end();
  }
}

/** A process's RSS and open descriptors, from /proc. */
function processStats(pid: number): { rssMb: number; fds: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return { rssMb: rssKb / 1024, fds: fs.readdirSync(`/proc/${pid}/fd`).length };
}

/** User + system CPU of a process so far, in ms. */
function processCpuMs(pid: number): number {
  const raw = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * The server's processes: `npm start`'s alone, or its primary and the web processes it started (its
 * children, each with its slot in SIMGATE_WEB_PROCESS: scripts/serve.mjs).
 */
function serverProcesses(pid: number): { pid: number; slot?: number }[] {
  const children = fs
    .readdirSync(`/proc/${pid}/task`)
    .flatMap((task) => fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' '))
    .map(Number)
    .filter((child) => child > 0);
  if (children.length === 0) return [{ pid, slot: 0 }];
  const slotOf = (child: number) => {
    const environ = fs.readFileSync(`/proc/${child}/environ`, 'utf8').split('\0');
    const slot = environ.find((entry) => entry.startsWith('SIMGATE_WEB_PROCESS='))?.split('=')[1];
    return slot === undefined ? undefined : Number(slot);
  };
  return [{ pid }, ...children.map((child) => ({ pid: child, slot: slotOf(child) }))];
}

/** CPU of all the server's processes so far, in ms. */
const serverCpuMs = (pid: number) => serverProcesses(pid).reduce((sum, p) => sum + processCpuMs(p.pid), 0);

/**
 * A few of the server's own metrics (/metrics, loopback needs no token), summed over its web processes;
 * the event-loop delay per web process (`simgate_eventloop_delay_p99_seconds` by slot). Each scrape
 * starts every process's event-loop histogram again.
 */
export async function serverMetrics(baseUrl: string): Promise<{
  heapUsed: number;
  heapLimit: number;
  eldP99BySlot: Map<number, number>;
  gc: Record<'major' | 'minor', { count: number; seconds: number }>;
}> {
  // Bounded: an overloaded server's scrape gives no readings (NaN, a miss) rather than ending the bench.
  const text = await fetch(`${baseUrl}/metrics`, { signal: AbortSignal.timeout(SCRAPE_TIMEOUT_MS) })
    .then((res) => res.text())
    .catch((error: unknown) => {
      console.log(`connections: /metrics gave no answer (${String(error)})`);
      return '';
    });
  const read = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  const gcOf = (kind: string) => ({
    count: Number(
      new RegExp(`^nodejs_gc_duration_seconds_count\\{kind="${kind}"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0,
    ),
    seconds: Number(
      new RegExp(`^nodejs_gc_duration_seconds_sum\\{kind="${kind}"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0,
    ),
  });
  const eld = text.matchAll(/^simgate_eventloop_delay_p99_seconds\{process="(\d+)"\} (\S+)$/gm);
  return {
    heapUsed: read('nodejs_heap_size_used_bytes'),
    heapLimit: read('nodejs_heap_size_total_bytes'),
    eldP99BySlot: new Map([...eld].map((match) => [Number(match[1]), Number(match[2])])),
    gc: { major: gcOf('major'), minor: gcOf('minor') },
  };
}

async function dbConnections(dbUrl: string): Promise<number> {
  const sql = postgres(dbUrl, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql`select count(*)::int as n from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid()`;
    return (row?.n as number) ?? 0;
  } finally {
    await sql.end();
  }
}

const wakeFigures = (times: number[]) => ({
  p50: Math.round(percentile(times, 50) * 10) / 10,
  p99: Math.round(percentile(times, 99) * 10) / 10,
  heard: times.length,
});

/** Sends to random phones at SENDS_PER_S; each latency is the send's 201 to the phone hearing of it. */
async function measureWakeUps(
  baseUrl: string,
  fleet: Fleet,
  phoneCount: number,
): Promise<{ times: number[]; byKind: Record<'stream' | 'poll', number[]>; missed: number; refused: number }> {
  const times: number[] = [];
  const byKind: Record<'stream' | 'poll', number[]> = { stream: [], poll: [] };
  let missed = 0;
  let refused = 0;
  const watched = new Set<number>();
  const one = async (n: number) => {
    const index = Math.floor(Math.random() * phoneCount);
    if (watched.has(index)) return;
    watched.add(index);
    const watch = await fleet.watch(index);
    let heardAt: number | undefined;
    const heard = watch.heard.then((at) => {
      heardAt = at;
      return at;
    });
    const account = Math.floor(index / PHONES_PER_ACCOUNT);
    const res = await fetch(`${baseUrl}/api/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': accountKey(account), 'content-type': 'application/json' },
      body: JSON.stringify({ from: phoneNumber(index), to: '+14155550123', content: `wake ${n}` }),
      signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
    }).catch((error: unknown) => error as Error);
    const answered = now();
    if (res instanceof Error || res.status !== 201) {
      if (refused++ === 0) {
        console.log(
          `connections: a send failed: ${res instanceof Error ? String(res) : `${res.status} ${await res.text()}`}`,
        );
      }
      watched.delete(index);
      watch.cancel();
      return;
    }
    await res.arrayBuffer();
    const at = await Promise.race([heard, new Promise<undefined>((r) => setTimeout(r, 10_000))]);
    watched.delete(index);
    if (at === undefined && heardAt === undefined) {
      missed++;
      watch.cancel();
      return;
    }
    const time = Math.max(0, (heardAt ?? at ?? answered) - answered);
    // Where the tail is: whether the phone's request was open when the send came, or it was between two.
    if (time > SLOW_WAKE_MS) {
      console.log(
        `connections: slow wake-up ${Math.round(time)} ms: ${kindOf(index)} ${index}, ${watch.state()} the send`,
      );
    }
    times.push(time);
    byKind[kindOf(index)].push(time);
  };
  const running: Promise<void>[] = [];
  for (let n = 0; n < SENDS; n++) {
    running.push(one(n));
    await new Promise((r) => setTimeout(r, 1000 / SENDS_PER_S));
  }
  await Promise.all(running);
  return { times, byKind, missed, refused };
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

/**
 * `npm start`'s web processes for N phones: BENCH_CONNECTIONS_PROCESSES, else two past 10,000 phones (one
 * process's 20,000 descriptors, and its event loop, do not stretch to more) and one up to there.
 */
export function connectionProcesses(phones: number, env: Record<string, string | undefined> = process.env): number {
  const raw = env.BENCH_CONNECTIONS_PROCESSES?.trim();
  return raw ? Number(raw) : phones > 10_000 ? 2 : 1;
}

const ms = (seconds: number | undefined) => (seconds === undefined ? NaN : Math.round(seconds * 1000 * 10) / 10);

export async function measureConnections(phoneCount: number): Promise<{ results: ConnectionResults; checks: Check[] }> {
  const baseDbUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const admin = postgres(baseDbUrl, { max: 1, onnotice: () => {} });
  const dbName = `simgate_conn_${process.pid}`;
  await admin.unsafe(`create database ${dbName}`);
  const dbUrl = Object.assign(new URL(baseDbUrl), { pathname: `/${dbName}` }).toString();
  const processes = connectionProcesses(phoneCount);
  const perProcess = Math.ceil(phoneCount / processes);
  const env = {
    ...benchServerEnv(),
    WEB_CONCURRENCY: String(processes),
    DATABASE_URL: dbUrl,
    APP_SECRET: 'bench-secret-bench-secret-bench-secret-0',
    APP_URL: 'http://127.0.0.1',
    ALLOWED_HOSTS: '127.0.0.1',
    SSE_STREAMS_PER_INSTANCE: String(phoneCount),
    // Each process's heap sized for its share of the phones, as the README tells an operator to: about
    // 64 KB each over a base.
    HEAP_MB: process.env.HEAP_MB ?? String(Math.max(256, Math.ceil((96 + perProcess * 0.064) / 64) * 64)),
    SSE_STREAMS_PER_ACCOUNT: String(PHONES_PER_ACCOUNT),
    WAITING_CLAIMS_PER_INSTANCE: String(phoneCount),
    WAITING_CLAIMS_PER_ACCOUNT: String(PHONES_PER_ACCOUNT),
  };
  let server: Server | undefined;
  let fleet: Fleet | undefined;
  try {
    // BENCH_CONNECTIONS_PROFILE=<dir>: CPU profiles of the first server's processes (bench/long-tasks.ts reads them).
    // BENCH_CONNECTIONS_NODE_ARGS: more flags for the first server's node, space-separated (`--trace-gc`,
    // `--heapsnapshot-signal=SIGUSR2`); its web processes inherit them.
    const profileDir = process.env.BENCH_CONNECTIONS_PROFILE;
    const extraArgs = [
      ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
      ...(process.env.BENCH_CONNECTIONS_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? []),
    ];
    const heapArgs = [
      `--max-old-space-size=${env.HEAP_MB}`,
      `--max-semi-space-size=${process.env.SEMI_SPACE_MB ?? 64}`,
    ];
    server = await startServer(env, extraArgs.length > 0 ? [...heapArgs, ...extraArgs] : []);
    const port = Number(new URL(server.baseUrl).port);
    console.log(`connections: seeding ${phoneCount} phones…`);
    await seed(dbUrl, phoneCount);
    const pid = server.process.pid!;
    const connectStarted = performance.now();
    fleet = startFleet(port, phoneCount);
    const allConnected = await waitFor(() => fleet!.connected() === phoneCount, 120_000);
    const connectS = (performance.now() - connectStarted) / 1000;
    console.log(
      `connections: ${fleet.connected()} of ${phoneCount} connected in ${connectS.toFixed(1)} s to ${processes} web process(es)${allConnected ? '' : ` (not all; last: ${fleet.last()})`}`,
    );
    // Idle: keepalives and re-polls only.
    const atIdle = await serverMetrics(server.baseUrl);
    // From here on: the load generators' delay while connecting is not the idle minute's.
    await fleet.delay();
    const cpuBefore = serverCpuMs(pid);
    await new Promise((r) => setTimeout(r, IDLE_S * 1000));
    const idleCpuMs = serverCpuMs(pid) - cpuBefore;
    const idleMetrics = await serverMetrics(server.baseUrl);
    console.log(
      `connections: idle ${IDLE_S} s: ${idleCpuMs} ms CPU, event loop p99 ${[...idleMetrics.eldP99BySlot.values()].map(ms).join(' / ')} ms`,
    );
    const generatorsIdle = await fleet.delay();
    const wake = await measureWakeUps(server.baseUrl, fleet, phoneCount);
    const generatorsSending = await fleet.delay();
    console.log(
      `connections: load generators' event loop p99 / max: idle ${generatorsIdle.p99Ms} / ${generatorsIdle.maxMs} ms, sends ${generatorsSending.p99Ms} / ${generatorsSending.maxMs} ms`,
    );
    const metrics = await serverMetrics(server.baseUrl);
    const gcSince = (kind: 'major' | 'minor') => {
      const count = metrics.gc[kind].count - atIdle.gc[kind].count;
      const pausedMs = (metrics.gc[kind].seconds - atIdle.gc[kind].seconds) * 1000;
      return { count, ms_avg: count > 0 ? Math.round((pausedMs / count) * 10) / 10 : 0 };
    };
    /**
     * A web process's worst p99 of the idle minute and the sends (a scrape the bench gave up on is still
     * read by the server, so the next one covers the time since); NaN, a miss, when neither reported it.
     */
    const eldOf = (slot: number) => {
      const readings = [idleMetrics, metrics].flatMap((m) => m.eldP99BySlot.get(slot) ?? []);
      return ms(readings.length > 0 ? Math.max(...readings) : undefined);
    };
    const perProcessStats: ServerProcess[] = serverProcesses(pid).map(({ pid: p, slot }) => {
      const stats = processStats(p);
      return {
        pid: p,
        role: slot === undefined ? 'primary' : 'web',
        ...(slot === undefined ? {} : { slot }),
        rss_mb: Math.round(stats.rssMb),
        open_fds: stats.fds,
        ...(slot === undefined ? {} : { event_loop_delay_p99_ms: eldOf(slot) }),
      };
    });
    const dbConns = await dbConnections(dbUrl);
    await fleet.refresh();
    const connectedAtEnd = fleet.connected();
    const errorsBefore = fleet.errors();
    console.log(
      `connections: before the restart: ${errorsBefore.status5xx} answers 5xx, ${errorsBefore.refused} told to back off, ${errorsBefore.other} requests failed`,
    );
    // The reconnect storm: the server (all its processes) restarts under every connection.
    console.log('connections: restarting the server under every connection…');
    await server.stop();
    const stormStarted = performance.now();
    await fleet.mark();
    server = await startServer(env, [], { port });
    await waitFor(() => fleet!.reconnected() === phoneCount, 180_000);
    await fleet.refresh();
    const stormS = (performance.now() - stormStarted) / 1000;
    const errorsAfter = fleet.errors();
    const webProcesses = perProcessStats.filter((p) => p.role === 'web');
    const results: ConnectionResults = {
      phones: phoneCount,
      processes,
      connections: phoneCount,
      streams: Math.ceil(phoneCount / 2),
      long_polls: Math.floor(phoneCount / 2),
      connected_at_end: connectedAtEnd,
      dropped: phoneCount - connectedAtEnd,
      rss_mb: perProcessStats.reduce((sum, p) => sum + p.rss_mb, 0),
      rss_target_mb: rssTargetMb(phoneCount),
      heap_used_mb: Math.round(metrics.heapUsed / 2 ** 20),
      heap_limit_mb: Math.round(metrics.heapLimit / 2 ** 20),
      open_fds: perProcessStats.reduce((sum, p) => sum + p.open_fds, 0),
      db_connections: dbConns,
      // A process that did not report counts as missing the target (NaN fails every comparison).
      event_loop_delay_p99_ms:
        webProcesses.length === processes
          ? Math.max(...webProcesses.map((p) => p.event_loop_delay_p99_ms ?? NaN))
          : Number.NaN,
      cpu_ms_per_idle_connection_per_min: Math.round((idleCpuMs / phoneCount / (IDLE_S / 60)) * 100) / 100,
      wake_ms: {
        p50: Math.round(percentile(wake.times, 50) * 10) / 10,
        p99: Math.round(percentile(wake.times, 99) * 10) / 10,
        sends: wake.times.length + wake.missed + wake.refused,
        missed: wake.missed,
        refused: wake.refused,
        by_kind: {
          stream: wakeFigures(wake.byKind.stream),
          poll: wakeFigures(wake.byKind.poll),
        },
      },
      connect_s: Math.round(connectS * 10) / 10,
      load_generators_event_loop_ms: {
        idle: { p99: generatorsIdle.p99Ms, max: generatorsIdle.maxMs },
        sends: { p99: generatorsSending.p99Ms, max: generatorsSending.maxMs },
      },
      gc: { major: gcSince('major'), minor: gcSince('minor') },
      reconnect: {
        phones: phoneCount,
        reconnected: fleet.reconnected(),
        seconds: Math.round(stormS * 10) / 10,
        status_5xx: errorsAfter.status5xx - errorsBefore.status5xx,
        refused_answers: errorsAfter.refused - errorsBefore.refused,
      },
      server_errors: errorsBefore.status5xx,
      per_process: perProcessStats,
    };
    return { results, checks: connectionChecks(results) };
  } finally {
    await fleet?.stop();
    await server?.stop();
    await admin.unsafe(`drop database if exists ${dbName} with (force)`);
    await admin.end();
  }
}

export function connectionChecks(r: ConnectionResults): Check[] {
  const n = `${r.phones.toLocaleString('en')} phones`;
  return [
    [
      `${n}: RSS of all ${r.processes + (r.processes > 1 ? 1 : 0)} server processes ≤ ${r.rss_target_mb} MB`,
      r.rss_mb <= r.rss_target_mb,
      `${r.rss_mb} MB (${r.per_process.map((p) => p.rss_mb).join(' + ')})`,
    ],
    [
      `${n}: wake-up p99 ≤ ${CONNECTION_TARGETS.wake_p99_ms} ms`,
      r.wake_ms.p99 <= CONNECTION_TARGETS.wake_p99_ms && r.wake_ms.missed === 0 && r.wake_ms.refused === 0,
      `p50 ${r.wake_ms.p50} ms, p99 ${r.wake_ms.p99} ms, ${r.wake_ms.missed} missed, ${r.wake_ms.refused} sends failed; streams ${r.wake_ms.by_kind.stream.p50} / ${r.wake_ms.by_kind.stream.p99} ms, long-polls ${r.wake_ms.by_kind.poll.p50} / ${r.wake_ms.by_kind.poll.p99} ms`,
    ],
    [
      `${n}: event-loop delay p99 ≤ ${CONNECTION_TARGETS.event_loop_delay_p99_ms} ms in every web process`,
      r.event_loop_delay_p99_ms <= CONNECTION_TARGETS.event_loop_delay_p99_ms,
      `worst ${r.event_loop_delay_p99_ms} ms (${r.per_process
        .filter((p) => p.role === 'web')
        .map((p) => `${p.slot}: ${p.event_loop_delay_p99_ms} ms`)
        .join(', ')})`,
    ],
    [`${n}: none dropped`, r.dropped === 0, `${r.connected_at_end} connected at the end`],
    [
      `${n}: reconnect storm without 5xx`,
      r.reconnect.status_5xx === 0 && r.reconnect.reconnected === r.connections,
      `${r.reconnect.reconnected} back in ${r.reconnect.seconds} s, ${r.reconnect.status_5xx} 5xx, ${r.reconnect.refused_answers} told to back off`,
    ],
  ];
}

export function printConnections(r: ConnectionResults): void {
  console.log(
    `\nConnected phones (${r.streams} SSE streams + ${r.long_polls} long-polls, ${r.processes} web process(es), PostgreSQL)`,
  );
  console.table({
    [r.connections]: {
      'RSS MB': r.rss_mb,
      'heap MB': `${r.heap_used_mb}/${r.heap_limit_mb}`,
      fds: r.open_fds,
      'db conns': r.db_connections,
      'ELD p99 ms': r.event_loop_delay_p99_ms,
      'CPU ms/conn/min': r.cpu_ms_per_idle_connection_per_min,
      'wake p50 ms': r.wake_ms.p50,
      'wake p99 ms': r.wake_ms.p99,
      'at end': r.connected_at_end,
      'reconnect s': r.reconnect.seconds,
    },
  });
  console.table(
    Object.fromEntries(
      r.per_process.map((p) => [
        p.role === 'primary' ? `primary ${p.pid}` : `web ${p.slot} (${p.pid})`,
        { 'RSS MB': p.rss_mb, fds: p.open_fds, 'ELD p99 ms': p.event_loop_delay_p99_ms ?? '' },
      ]),
    ),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const phones = Number(process.env.BENCH_CONNECTIONS_PHONES ?? 20_000);
  const { results, checks } = await measureConnections(phones);
  printConnections(results);
  console.log(JSON.stringify(results, null, 2));
  for (const [name, ok, detail] of checks) console.log(`${ok ? 'PASS' : 'MISS'}  ${name}: ${detail}`);
}
