// The connections scenario of `npm run bench` (issue "Scale"): N phones paired as the SMSGate app
// holding GET /api/mobile/v1/events open, and N simulator phones long-polling the claim, against one
// `npm start` instance on PostgreSQL. Reports the server's RSS and heap, its open file descriptors, the
// database connections in use, the event-loop delay (p99), CPU per idle connection per minute, the
// wake-up latency from a send's 201 to the phone's event or claim answer, and a reconnect storm (the
// instance restarted under all 2N connections). Runnable alone: `npx tsx bench/connections.ts`.

import fs from 'node:fs';
import http from 'node:http';
import postgres from 'postgres';
import { hashSecret } from '../lib/auth/keys';
import { percentile } from './load';
import { benchServerEnv, type Server, startServer } from './server';

export const CONNECTION_TARGETS = { rss_mb: 1024, wake_p99_ms: 250, event_loop_delay_p99_ms: 50 };

/** Phones per account: a hosted gateway's accounts each hold a few. */
const PHONES_PER_ACCOUNT = 10;
/** The long-poll's `wait`, as the simulator asks. */
const POLL_WAIT_S = 25;
const SENDS = Number(process.env.BENCH_CONNECTIONS_SENDS ?? 300);
const SENDS_PER_S = 10;
/** Only one kind of connection (`stream` or `poll`), for looking at one at a time. */
const ONLY_KIND = (process.env.BENCH_CONNECTIONS_KIND as 'stream' | 'poll' | undefined) || undefined;
const IDLE_S = Number(process.env.BENCH_CONNECTIONS_IDLE_S ?? 60);

export type ConnectionResults = {
  /**
   * N: connected phones, half SSE streams (even indexes) and half long-polls: this machine's hard limit
   * of 20,000 descriptors per process leaves no room for 10,000 of each on one instance.
   */
  phones: number;
  connections: number;
  streams: number;
  long_polls: number;
  connected_at_end: number;
  dropped: number;
  rss_mb: number;
  heap_used_mb: number;
  heap_limit_mb: number;
  open_fds: number;
  db_connections: number;
  event_loop_delay_p99_ms: number;
  cpu_ms_per_idle_connection_per_min: number;
  wake_ms: { p50: number; p99: number; sends: number; missed: number };
  connect_s: number;
  /** Garbage collections while idle and during the sends (V8's full and young-generation ones), with their mean pause. */
  gc: Record<'major' | 'minor', { count: number; ms_avg: number }>;
  reconnect: { phones: number; reconnected: number; seconds: number; status_5xx: number; refused_answers: number };
  server_errors: number;
};

type Check = [string, boolean, string];

const agent = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY, maxFreeSockets: 1_000_000 });

/** The deterministic keys of the bench's phones and accounts (base62 bodies of 40 characters). */
const deviceKey = (i: number) => `dk_connbench${String(i).padStart(31, '0')}`;
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

type Phone = {
  index: number;
  kind: 'stream' | 'poll';
  connected: boolean;
  /** When the phone last heard of work (an event, or a claim answer with a message). */
  pending?: { resolve: (at: number) => void };
  connects: number;
};

type Fleet = {
  phones: Phone[];
  stop: () => void;
  connected: () => number;
  errors: { status5xx: number; refused: number; other: number };
  /** The last refusal or failure, for the log. */
  last: { value: string };
};

/** Opens every phone's connection and keeps it open (reconnecting, as the app and the simulator do). */
export function startFleet(port: number, count: number): Fleet {
  let stopped = false;
  const errors = { status5xx: 0, refused: 0, other: 0 };
  const last = { value: '' };
  const phones: Phone[] = Array.from({ length: count }, (_, index) => ({
    index,
    kind: ONLY_KIND ?? (index % 2 === 0 ? 'stream' : 'poll'),
    connected: false,
    connects: 0,
  }));
  const requests = new Set<http.ClientRequest>();
  /** After a failure: the app's 5 s → 30 s → 60 s, the simulator's 1-5 s, each with jitter. */
  const retryLater = (phone: Phone, run: () => void, retryAfterS?: number, exactMs?: number) => {
    phone.connected = false;
    if (stopped) return;
    // A server's `retry:` is followed as given (it is spread already); other waits get jitter here.
    if (exactMs !== undefined) return void setTimeout(run, exactMs);
    const base = retryAfterS !== undefined ? retryAfterS * 1000 : phone.kind === 'stream' ? 5_000 : 1_000;
    setTimeout(run, base + Math.random() * base);
  };
  const openStream = (phone: Phone) => {
    if (stopped) return;
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/api/mobile/v1/events',
        method: 'GET',
        agent,
        headers: { authorization: `Bearer ${deviceKey(phone.index)}`, accept: 'text/event-stream' },
      },
      (res) => {
        if (res.statusCode !== 200) {
          last.value = `stream ${res.statusCode}`;
          if ((res.statusCode ?? 0) >= 500) errors.status5xx++;
          else errors.refused++;
          res.resume();
          const retry = Number(res.headers['retry-after']);
          res.on('end', () => retryLater(phone, () => openStream(phone), Number.isFinite(retry) ? retry : undefined));
          return;
        }
        phone.connected = true;
        phone.connects++;
        let retryMs: number | undefined;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (chunk.includes('event: MessageEnqueued')) {
            const at = performance.now();
            phone.pending?.resolve(at);
            phone.pending = undefined;
          }
          const retry = /retry: (\d+)/.exec(chunk);
          if (retry) retryMs = Number(retry[1]);
        });
        const ended = () => {
          requests.delete(req);
          if (!phone.connected) return;
          phone.connected = false;
          retryLater(phone, () => openStream(phone), undefined, retryMs);
        };
        res.on('end', ended);
        res.on('close', ended);
        res.on('error', () => {});
      },
    );
    requests.add(req);
    req.on('error', (error) => {
      requests.delete(req);
      errors.other++;
      last.value = `stream ${String(error)}`;
      retryLater(phone, () => openStream(phone));
    });
    req.end();
  };
  const poll = (phone: Phone) => {
    if (stopped) return;
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: `/api/v1/device/outbox/claim?wait=${POLL_WAIT_S}`,
        method: 'POST',
        agent,
        headers: { 'x-api-key': deviceKey(phone.index), 'content-type': 'application/json' },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => {
          requests.delete(req);
          const status = res.statusCode ?? 0;
          if (status !== 200) {
            last.value = `poll ${status} ${body.slice(0, 200)}`;
            if (status >= 500) errors.status5xx++;
            else errors.refused++;
            const retry = Number(res.headers['retry-after']);
            return retryLater(phone, () => poll(phone), Number.isFinite(retry) ? retry : undefined);
          }
          if (body.includes('"id"')) {
            const at = performance.now();
            phone.pending?.resolve(at);
            phone.pending = undefined;
          }
          poll(phone);
        });
        res.on('error', () => {});
      },
    );
    requests.add(req);
    phone.connected = true;
    phone.connects++;
    req.on('error', (error) => {
      requests.delete(req);
      errors.other++;
      last.value = `poll ${String(error)}`;
      retryLater(phone, () => poll(phone));
    });
    req.end('{"limit":1}');
  };
  // Phones come online over a few seconds, as a fleet would, not in one tick.
  const spread = Math.min(20_000, count * 2);
  for (const phone of phones) {
    setTimeout(() => (phone.kind === 'stream' ? openStream(phone) : poll(phone)), Math.random() * spread);
  }
  return {
    phones,
    errors,
    last,
    connected: () => phones.filter((phone) => phone.connected).length,
    stop: () => {
      stopped = true;
      for (const req of requests) req.destroy();
      agent.destroy();
    },
  };
}

/** The server's RSS and open descriptors, from /proc. */
function processStats(pid: number): { rssMb: number; fds: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return { rssMb: rssKb / 1024, fds: fs.readdirSync(`/proc/${pid}/fd`).length };
}

/** User + system CPU of the whole server process so far, in ms. */
function processCpuMs(pid: number): number {
  const raw = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = raw.slice(raw.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** A few of the server's own metrics (/metrics, loopback needs no token). */
export async function serverMetrics(baseUrl: string): Promise<{
  heapUsed: number;
  heapLimit: number;
  eldP99: number;
  gc: Record<'major' | 'minor', { count: number; seconds: number }>;
}> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const read = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  const gcOf = (kind: string) => ({
    count: Number(
      new RegExp(`^nodejs_gc_duration_seconds_count\\{kind="${kind}"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0,
    ),
    seconds: Number(
      new RegExp(`^nodejs_gc_duration_seconds_sum\\{kind="${kind}"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0,
    ),
  });
  return {
    heapUsed: read('nodejs_heap_size_used_bytes'),
    heapLimit: read('nodejs_heap_size_total_bytes'),
    eldP99: read('nodejs_eventloop_lag_p99_seconds'),
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

/** Sends to random phones at SENDS_PER_S; each latency is the send's 201 to the phone hearing of it. */
async function measureWakeUps(baseUrl: string, fleet: Fleet): Promise<{ times: number[]; missed: number }> {
  const times: number[] = [];
  let missed = 0;
  const one = async (n: number) => {
    const phone = fleet.phones[Math.floor(Math.random() * fleet.phones.length)]!;
    if (phone.pending) return;
    let heardAt: number | undefined;
    const heard = new Promise<number>((resolve) => {
      phone.pending = { resolve };
    }).then((at) => {
      heardAt = at;
      return at;
    });
    const account = Math.floor(phone.index / PHONES_PER_ACCOUNT);
    const res = await fetch(`${baseUrl}/api/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': accountKey(account), 'content-type': 'application/json' },
      body: JSON.stringify({ from: phoneNumber(phone.index), to: '+14155550123', content: `wake ${n}` }),
    });
    const answered = performance.now();
    if (res.status !== 201) throw new Error(`send answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
    const at = await Promise.race([heard, new Promise<undefined>((r) => setTimeout(r, 10_000))]);
    if (at === undefined && heardAt === undefined) {
      missed++;
      phone.pending = undefined;
      return;
    }
    times.push(Math.max(0, (heardAt ?? at ?? answered) - answered));
  };
  const running: Promise<void>[] = [];
  for (let n = 0; n < SENDS; n++) {
    running.push(one(n));
    await new Promise((r) => setTimeout(r, 1000 / SENDS_PER_S));
  }
  await Promise.all(running);
  return { times, missed };
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

export async function measureConnections(phoneCount: number): Promise<{ results: ConnectionResults; checks: Check[] }> {
  const baseDbUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const admin = postgres(baseDbUrl, { max: 1, onnotice: () => {} });
  const dbName = `simgate_conn_${process.pid}`;
  await admin.unsafe(`create database ${dbName}`);
  const dbUrl = Object.assign(new URL(baseDbUrl), { pathname: `/${dbName}` }).toString();
  const env = {
    ...benchServerEnv(),
    DATABASE_URL: dbUrl,
    APP_SECRET: 'bench-secret-bench-secret-bench-secret-0',
    APP_URL: 'http://127.0.0.1',
    ALLOWED_HOSTS: '127.0.0.1',
    SSE_STREAMS_PER_INSTANCE: String(phoneCount),
    // The heap sized for the phones, as the README tells an operator to: about 32 KB each over a base.
    HEAP_MB: process.env.HEAP_MB ?? String(Math.max(256, Math.ceil((96 + phoneCount * 0.064) / 64) * 64)),
    SSE_STREAMS_PER_ACCOUNT: String(PHONES_PER_ACCOUNT),
    WAITING_CLAIMS_PER_INSTANCE: String(phoneCount),
    WAITING_CLAIMS_PER_ACCOUNT: String(PHONES_PER_ACCOUNT),
  };
  let server: Server | undefined;
  let fleet: Fleet | undefined;
  try {
    server = await startServer(env);
    const port = Number(new URL(server.baseUrl).port);
    console.log(`connections: seeding ${phoneCount} phones…`);
    await seed(dbUrl, phoneCount);
    const pid = server.process.pid!;
    const connectStarted = performance.now();
    fleet = startFleet(port, phoneCount);
    const allConnected = await waitFor(() => fleet!.connected() === phoneCount, 120_000);
    const connectS = (performance.now() - connectStarted) / 1000;
    console.log(
      `connections: ${fleet.connected()} of ${phoneCount} connected in ${connectS.toFixed(1)} s${allConnected ? '' : ' (not all)'}`,
    );
    // Idle: keepalives and re-polls only.
    const atIdle = await serverMetrics(server.baseUrl); // resets the event-loop histogram
    const cpuBefore = processCpuMs(pid);
    await new Promise((r) => setTimeout(r, IDLE_S * 1000));
    const idleCpuMs = processCpuMs(pid) - cpuBefore;
    const idleMetrics = await serverMetrics(server.baseUrl);
    console.log(
      `connections: idle ${IDLE_S} s: ${idleCpuMs} ms CPU, event loop p99 ${(idleMetrics.eldP99 * 1000).toFixed(1)} ms`,
    );
    const wake = await measureWakeUps(server.baseUrl, fleet);
    const metrics = await serverMetrics(server.baseUrl);
    const gcSince = (kind: 'major' | 'minor') => {
      const count = metrics.gc[kind].count - atIdle.gc[kind].count;
      const ms = (metrics.gc[kind].seconds - atIdle.gc[kind].seconds) * 1000;
      return { count, ms_avg: count > 0 ? Math.round((ms / count) * 10) / 10 : 0 };
    };
    const stats = processStats(pid);
    const dbConns = await dbConnections(dbUrl);
    const connectedAtEnd = fleet.connected();
    const errorsBefore = { ...fleet.errors };
    // The reconnect storm: the instance restarts under every connection.
    console.log('connections: restarting the instance under every connection…');
    await server.stop();
    const stormStarted = performance.now();
    const connectsBefore = fleet.phones.map((phone) => phone.connects);
    server = await startServer(env, [], { port });
    const reconnected = () =>
      fleet!.phones.filter((phone, i) => phone.connected && phone.connects > connectsBefore[i]!).length;
    await waitFor(() => reconnected() === phoneCount, 180_000);
    const stormS = (performance.now() - stormStarted) / 1000;
    const results: ConnectionResults = {
      phones: phoneCount,
      connections: phoneCount,
      streams: Math.ceil(phoneCount / 2),
      long_polls: Math.floor(phoneCount / 2),
      connected_at_end: connectedAtEnd,
      dropped: phoneCount - connectedAtEnd,
      rss_mb: Math.round(stats.rssMb),
      heap_used_mb: Math.round(metrics.heapUsed / 2 ** 20),
      heap_limit_mb: Math.round(metrics.heapLimit / 2 ** 20),
      open_fds: stats.fds,
      db_connections: dbConns,
      event_loop_delay_p99_ms: Math.round(Math.max(idleMetrics.eldP99, metrics.eldP99) * 1000 * 10) / 10,
      cpu_ms_per_idle_connection_per_min: Math.round((idleCpuMs / phoneCount / (IDLE_S / 60)) * 100) / 100,
      wake_ms: {
        p50: Math.round(percentile(wake.times, 50) * 10) / 10,
        p99: Math.round(percentile(wake.times, 99) * 10) / 10,
        sends: wake.times.length + wake.missed,
        missed: wake.missed,
      },
      connect_s: Math.round(connectS * 10) / 10,
      gc: { major: gcSince('major'), minor: gcSince('minor') },
      reconnect: {
        phones: phoneCount,
        reconnected: reconnected(),
        seconds: Math.round(stormS * 10) / 10,
        status_5xx: fleet.errors.status5xx - errorsBefore.status5xx,
        refused_answers: fleet.errors.refused - errorsBefore.refused,
      },
      server_errors: errorsBefore.status5xx,
    };
    return { results, checks: connectionChecks(results) };
  } finally {
    fleet?.stop();
    await server?.stop();
    await admin.unsafe(`drop database if exists ${dbName} with (force)`);
    await admin.end();
  }
}

export function connectionChecks(r: ConnectionResults): Check[] {
  const n = `${r.phones.toLocaleString('en')} phones`;
  return [
    [`${n}: RSS ≤ ${CONNECTION_TARGETS.rss_mb} MB`, r.rss_mb <= CONNECTION_TARGETS.rss_mb, `${r.rss_mb} MB`],
    [
      `${n}: wake-up p99 ≤ ${CONNECTION_TARGETS.wake_p99_ms} ms`,
      r.wake_ms.p99 <= CONNECTION_TARGETS.wake_p99_ms && r.wake_ms.missed === 0,
      `p50 ${r.wake_ms.p50} ms, p99 ${r.wake_ms.p99} ms, ${r.wake_ms.missed} missed`,
    ],
    [
      `${n}: event-loop delay p99 ≤ ${CONNECTION_TARGETS.event_loop_delay_p99_ms} ms`,
      r.event_loop_delay_p99_ms <= CONNECTION_TARGETS.event_loop_delay_p99_ms,
      `${r.event_loop_delay_p99_ms} ms`,
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
  console.log(`\nConnected phones (${r.streams} SSE streams + ${r.long_polls} long-polls, one instance, PostgreSQL)`);
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
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const phones = Number(process.env.BENCH_CONNECTIONS_PHONES ?? 1000);
  const { results, checks } = await measureConnections(phones);
  printConnections(results);
  console.log(JSON.stringify(results, null, 2));
  for (const [name, ok, detail] of checks) console.log(`${ok ? 'PASS' : 'MISS'}  ${name}: ${detail}`);
}
