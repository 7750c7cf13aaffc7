// `npm run bench`: the whole path, measured against the framework's and the database's ceilings in
// the same run. Scenarios (each bounded in time): ping (the bare route through Next's router),
// ping_direct (the same handler on npm start's direct lane), db_ceiling (on PostgreSQL: the send's
// statement from postgres.js alone, bench/db-ceiling.ts), send_one_account, send_many_accounts
// (100 accounts, keys rotated per request), heartbeat (100 phones), bulk of 1,000, dispatch (send's
// 201 → a long-polling phone's claim), webhook (an inbound report → the signed delivery at a local
// receiver), search over 100,000 messages, and the server's peak RSS during the sends. Prints a
// table and writes bench/results/latest.json. With BENCH_DATABASE_URL the server runs on that
// PostgreSQL database (server mode); otherwise on a throwaway embedded database.
// Then, on PostgreSQL, the connected phones (bench/connections.ts) and with BENCH_BIG_TABLE=1 ten million
// messages (bench/big-table.ts): scaleScenarios below.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestCertificates, type Receiver, startReceiver } from '../test/fixtures/tls/receiver';
import { activateBenchPhone, type BenchPhone } from './activate';
import { measureConnections, printConnections } from './connections';
import { dbCeiling } from './db-ceiling';
import {
  analyze,
  CONNECTIONS,
  type CpuPerRequest,
  DURATION_S,
  type InterleavedScenario,
  interleaved,
  type Load,
  load,
  type NextRequest,
  peakRss,
  percentile,
  post,
  recipient,
  SLICE_S,
} from './load';
import { benchServerEnv, startServer } from './server';

const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 100);

/** The targets of issues 13 and 48 (2 cores, server, database and load generator together). */
const TARGETS = {
  postgres: { send_vs_db_ceiling: 0.4, send_many_vs_db_ceiling: 0.4, send_vs_next_ping: 2.5 },
  pglite: { send_vs_next_ping: 0.6 },
  dispatch_p50_ms: 50,
  dispatch_p99_ms: 50,
  webhook_p50_ms: 500,
  bulk_p50_ms: 150,
  search_p50_ms: 50,
  rss_mb: 400,
};

function summary(samples: number[], seconds: number): Load {
  return {
    rps: samples.length / seconds,
    p50_ms: percentile(samples, 50),
    p99_ms: percentile(samples, 99),
    errors: 0,
  };
}

/** `count` accounts with one activated phone each, ten activations at a time. */
async function activateMany(baseUrl: string, count: number, first: number, label: string): Promise<BenchPhone[]> {
  const phones: BenchPhone[] = [];
  for (let start = 0; start < count; start += 10) {
    const batch = Array.from({ length: Math.min(10, count - start) }, (_, i) => start + i);
    phones.push(
      ...(await Promise.all(
        batch.map((i) =>
          activateBenchPhone(
            baseUrl,
            `+1415555${String(first + i).padStart(4, '0')}`,
            `bench-${label}-${i}-${Date.now()}@example.test`,
          ),
        ),
      )),
    );
  }
  return phones;
}

/**
 * Flags for the server's node instead of `npm start`'s (`BENCH_NODE_ARGS="--max-old-space-size=512"`); the
 * server's heap limit alone is `HEAP_MB`, as for `npm start`.
 */
const SERVER_NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);

type Scenario = 'ping' | 'ping_direct' | 'send_one_account' | 'send_many_accounts' | 'heartbeat';
type Measured = {
  loads: Record<Scenario, Load> & { db_ceiling?: Load };
  cpu: Record<Scenario, CpuPerRequest> & { db_ceiling?: CpuPerRequest };
  rssMb: number;
};
type KeyHeader = Record<string, string>;

type Check = [string, boolean, string];

/**
 * The scenarios of issue "Scale", after the others (or alone with BENCH_ONLY=connections|big_table,
 * merged into the last bench/results/latest.json): the connected phones (BENCH_CONNECTIONS_PHONES,
 * default 20,000, issue 50's figure, over BENCH_CONNECTIONS_PROCESSES web processes; on PostgreSQL,
 * skipped without one) and, with BENCH_BIG_TABLE=1, ten million messages.
 */
async function scaleScenarios(): Promise<{ results: Record<string, unknown>; checks: Check[] }> {
  const results: Record<string, unknown> = {};
  const checks: Check[] = [];
  const only = process.env.BENCH_ONLY;
  if (only === undefined || only === 'connections') {
    const phones = Number(process.env.BENCH_CONNECTIONS_PHONES ?? 20_000);
    if (await postgresReachable()) {
      const measured = await measureConnections(phones);
      printConnections(measured.results);
      results.connections = measured.results;
      checks.push(...measured.checks);
    } else {
      console.log('connections: skipped (needs PostgreSQL: BENCH_DATABASE_URL, or one on 127.0.0.1:5432)');
    }
  }
  if (only === 'big_table' || (only === undefined && process.env.BENCH_BIG_TABLE === '1')) {
    const { measureBigTable, printBigTable } = await import('./big-table');
    const measured = await measureBigTable();
    printBigTable(measured.results);
    results.big_table = measured.results;
    checks.push(...measured.checks);
  }
  return { results, checks };
}

async function postgresReachable(): Promise<boolean> {
  const { default: postgres } = await import('postgres');
  const sql = postgres(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', {
    max: 1,
    connect_timeout: 3,
    onnotice: () => {},
  });
  try {
    await sql`select 1`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.end();
  }
}

function writeResults(results: Record<string, unknown>): void {
  const outDir = path.join(import.meta.dirname, 'results');
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
}

function printChecks(checks: Check[]): void {
  console.log('');
  for (const [name, ok, detail] of checks) console.log(`${ok ? 'PASS' : 'MISS'}  ${name}: ${detail}`);
}

async function main() {
  if (process.env.BENCH_ONLY) {
    // One scale scenario alone: its results replace its own part of the last run's file.
    const scale = await scaleScenarios();
    printChecks(scale.checks);
    const file = path.join(import.meta.dirname, 'results', 'latest.json');
    const previous = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
    writeResults({ ...previous, ...scale.results });
    process.exitCode = scale.checks.every(([, ok]) => ok) ? 0 : 1;
    return;
  }
  const dbUrl = process.env.BENCH_DATABASE_URL;
  const certs = createTestCertificates();
  const receiver = await startReceiver(certs);
  const server = await startServer(
    {
      ...benchServerEnv(),
      // The webhook scenario's receiver is on loopback, with its own CA.
      NODE_EXTRA_CA_CERTS: certs.caFile,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1',
    },
    SERVER_NODE_ARGS,
  );
  let stopped = false;
  try {
    const { baseUrl } = server;
    const { account, poller, many, dispatchers } = await activateAll(baseUrl);
    const keyHeader = { 'x-api-key': account.apiKey };
    const measured = await measureInterleaved(baseUrl, server.process.pid, account, many);
    if (process.env.BENCH_ONLY_RATIOS) {
      printRatios(measured);
      writeResults({
        at: new Date().toISOString(),
        machine: machineOf(),
        only_ratios: true,
        database: dbUrl ? 'postgres' : 'pglite',
        connections: CONNECTIONS,
        duration_s: DURATION_S,
        scenarios: measured.loads,
        ratios: ratiosOf(measured.loads),
        rss_mb_max: Math.round(measured.rssMb),
        cpu_us_per_request: measured.cpu,
      });
      return;
    }
    const recipients = Array.from({ length: 1000 }, (_, i) => `+1415555${String(i).padStart(4, '0')}`);
    const bulk = await measureBulk(baseUrl, keyHeader, account, recipients);
    const dispatchTimes = await measureDispatch(baseUrl, dispatchers);
    const webhookTimes = await measureWebhook(baseUrl, keyHeader, receiver, poller);
    const search = await measureSearch(baseUrl, recipients);
    const database = dbUrl ? 'postgres' : 'pglite';
    const results = resultsOf(database, measured, { bulk, search, dispatchTimes, webhookTimes });
    printTable(results);
    await server.stop();
    stopped = true;
    const scale = await scaleScenarios();
    const checks = [...checksOf(database, results), ...scale.checks];
    printChecks(checks);
    writeResults({ ...results, ...scale.results });
    process.exitCode = checks.every(([, ok]) => ok) ? 0 : 1;
  } finally {
    if (!stopped) await server.stop();
    await receiver.close();
  }
}

/**
 * One phone takes the load; a second, with an empty queue, receives the webhook scenario's inbound
 * messages. Dispatch goes round the many accounts' idle phones (each paced at 10 a minute).
 */
async function activateAll(baseUrl: string) {
  const email = `bench-${Date.now()}@example.test`;
  const account = await activateBenchPhone(baseUrl, '+14155550100', email);
  const poller = await activateBenchPhone(baseUrl, '+14155550101', email);
  console.log(`activating ${ACCOUNTS + 100} more accounts…`);
  const many = await activateMany(baseUrl, ACCOUNTS, 2000, 'many');
  // Idle phones for the dispatch scenario: the send scenarios fill the others' queues.
  const dispatchers = process.env.BENCH_ONLY_RATIOS ? [] : await activateMany(baseUrl, 100, 4000, 'dispatch');
  return { account, poller, many, dispatchers };
}

/** The requests of the interleaved scenarios, numbered by one counter. */
function requestsOf(account: BenchPhone, many: BenchPhone[]): Record<Scenario, NextRequest> {
  let n = 0;
  return {
    ping: () => ({ headers: {}, body: '{"ping":true}' }),
    ping_direct: () => ({ headers: {}, body: '{"ping":true}' }),
    send_one_account: () => ({
      headers: { 'x-api-key': account.apiKey },
      body: JSON.stringify({
        from: account.phone,
        to: recipient(n),
        content: 'Benchmark message',
        request_id: `one-${n++}`,
      }),
    }),
    send_many_accounts: () => {
      const phone = many[n % many.length]!;
      return {
        headers: { 'x-api-key': phone.apiKey },
        body: JSON.stringify({
          from: phone.phone,
          to: recipient(n),
          content: 'Benchmark message',
          request_id: `many-${n++}`,
        }),
      };
    },
    heartbeat: () => {
      const phone = many[n++ % many.length]!;
      return {
        headers: { 'x-api-key': phone.deviceKey },
        body: JSON.stringify({ phone: phone.phone, status: 'online', battery: 50 + (n % 50) }),
      };
    },
  };
}

/**
 * Both pings, the two sends, heartbeats and (on PostgreSQL) the database's ceiling in turns, after
 * a warm-up, with the server's peak RSS.
 */
async function measureInterleaved(
  baseUrl: string,
  pid: number | undefined,
  account: BenchPhone,
  many: BenchPhone[],
): Promise<Measured> {
  const bareUrl = `${baseUrl}/api/bench/bare`;
  const directUrl = `${baseUrl}/api/bench/direct`;
  const sendUrl = `${baseUrl}/api/v1/messages`;
  const heartbeatUrl = `${baseUrl}/api/v1/heartbeats`;
  const requests = requestsOf(account, many);
  console.log(`warming up (${CONNECTIONS} connections)…`);
  await load(bareUrl, requests.ping, 3);
  await load(directUrl, requests.ping_direct, 2);
  await load(sendUrl, requests.send_one_account, 3);
  await load(sendUrl, requests.send_many_accounts, 2);
  await load(heartbeatUrl, requests.heartbeat, 2);
  // A database this new has no planner statistics until autovacuum's (or the embedded maintenance
  // pass's) first ANALYZE, which may come in the middle of a scenario: until then the planner took
  // the (account, created_at) index for the send's request_id check and read every message of the
  // account. A database in use has them.
  await analyze(baseUrl);
  const dbUrl = process.env.BENCH_DATABASE_URL;
  const ceiling = dbUrl ? dbCeiling(dbUrl, account.accountId, account) : undefined;
  if (ceiling) await ceiling.drive(2);
  console.log(`measuring ${DURATION_S} s each, in turns of ${SLICE_S} s…`);
  try {
    const scenarios: Record<string, InterleavedScenario> = {
      ping: { url: bareUrl, next: requests.ping },
      ping_direct: { url: directUrl, next: requests.ping_direct },
      send_one_account: { url: sendUrl, next: requests.send_one_account },
      send_many_accounts: { url: sendUrl, next: requests.send_many_accounts },
      heartbeat: { url: heartbeatUrl, next: requests.heartbeat },
    };
    if (ceiling) scenarios.db_ceiling = { drive: ceiling.drive };
    const measured = await peakRss(pid, () => interleaved(scenarios, pid));
    return { ...(measured.result as Pick<Measured, 'loads' | 'cpu'>), rssMb: measured.rssMb };
  } finally {
    await ceiling?.end();
  }
}

/** A quick look while working on the hot path: the four interleaved scenarios, nothing written. */
function printRatios({ loads, cpu, rssMb }: Measured): void {
  console.table(loads);
  console.table(cpu);
  const ratios = Object.entries(ratiosOf(loads))
    .map(([name, value]) => `${name} ${value === null ? '—' : `${value.toFixed(2)}×`}`)
    .join(', ');
  console.log(`ratios: ${ratios}; peak RSS ${rssMb} MB`);
}

/**
 * The ratios of a run: each send scenario and heartbeats against Next's ping (`_vs_ping` and
 * `_vs_next_ping`, the same figure), against the direct lane's ping, and the sends against the
 * database's ceiling (null on the embedded database, which has none apart from the server).
 */
function ratiosOf(loads: Measured['loads']) {
  const { ping, ping_direct: direct, send_one_account: sentOne, send_many_accounts: sentMany, heartbeat } = loads;
  const ceiling = loads.db_ceiling?.rps;
  return {
    send_vs_ping: sentOne.rps / ping.rps,
    send_many_vs_ping: sentMany.rps / ping.rps,
    heartbeat_vs_ping: heartbeat.rps / ping.rps,
    send_vs_next_ping: sentOne.rps / ping.rps,
    send_vs_direct_ping: sentOne.rps / direct.rps,
    send_many_vs_direct_ping: sentMany.rps / direct.rps,
    heartbeat_vs_direct_ping: heartbeat.rps / direct.rps,
    direct_ping_vs_next_ping: direct.rps / ping.rps,
    send_vs_db_ceiling: ceiling ? sentOne.rps / ceiling : null,
    send_many_vs_db_ceiling: ceiling ? sentMany.rps / ceiling : null,
  };
}

/** Bulk of 1,000: latency per call. */
async function measureBulk(
  baseUrl: string,
  keyHeader: KeyHeader,
  account: BenchPhone,
  recipients: string[],
): Promise<Load> {
  const bulkTimes: number[] = [];
  const bulkStarted = performance.now();
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    const res = await post(`${baseUrl}/api/v1/bulk-messages`, keyHeader, {
      from: account.phone,
      recipients,
      content: `Bulk ${i}`,
    });
    if (res.status !== 201) throw new Error(`bulk answered ${res.status}: ${await res.text()}`);
    bulkTimes.push(performance.now() - started);
  }
  return summary(bulkTimes, (performance.now() - bulkStarted) / 1000);
}

/** Dispatch: the poller long-polls; a send arrives; time from the send's 201 to the claim's answer. */
async function measureDispatch(baseUrl: string, dispatchers: BenchPhone[]): Promise<number[]> {
  console.log('dispatch: 200 sends to a long-polling phone…');
  const dispatchTimes: number[] = [];
  for (let i = 0; i < 200; i++) {
    const phone = dispatchers[i % dispatchers.length] as BenchPhone;
    const claimStarted = performance.now();
    const claim = post(`${baseUrl}/api/v1/device/outbox/claim?wait=10`, { 'x-api-key': phone.deviceKey }, { limit: 1 });
    await new Promise((resolve) => setTimeout(resolve, 20)); // let the claim start waiting
    const sent = await post(
      `${baseUrl}/api/v1/messages`,
      { 'x-api-key': phone.apiKey },
      {
        from: phone.phone,
        to: '+14155550123',
        content: `poll ${i}`,
      },
    );
    const answered = performance.now();
    if (sent.status !== 201) throw new Error(`send answered ${sent.status}: ${await sent.text()}`);
    const claimRes = await claim;
    const claimed = (await claimRes.json()) as { data: unknown[] };
    if (claimed.data?.length !== 1) {
      throw new Error(
        `claim ${i} (${phone.phone}) answered ${claimRes.status} after ${(performance.now() - claimStarted).toFixed(0)} ms: ${JSON.stringify(claimed).slice(0, 200)}`,
      );
    }
    dispatchTimes.push(performance.now() - answered);
  }
  return dispatchTimes;
}

/** Webhook: an inbound report → the signed delivery arriving at the local receiver. */
async function measureWebhook(
  baseUrl: string,
  keyHeader: KeyHeader,
  receiver: Receiver,
  poller: BenchPhone,
): Promise<number[]> {
  console.log('webhook: 50 inbound reports to a signed delivery…');
  const hook = await post(`${baseUrl}/api/v1/webhooks`, keyHeader, {
    url: receiver.url('/bench'),
    events: ['message.received'],
  });
  if (hook.status !== 201) throw new Error(`webhook answered ${hook.status}: ${await hook.text()}`);
  const webhookTimes: number[] = [];
  for (let i = 0; i < 50; i++) {
    const marker = `inbound-${i}-${Date.now()}`;
    const started = performance.now();
    const res = await post(
      `${baseUrl}/api/v1/device/messages/received`,
      { 'x-api-key': poller.deviceKey },
      {
        from: '+14155550199',
        content: marker,
      },
    );
    if (res.status !== 201) throw new Error(`inbound answered ${res.status}`);
    const deadline = Date.now() + 10_000;
    while (!receiver.hits.some((hit) => hit.body.includes(marker))) {
      if (Date.now() > deadline) throw new Error(`webhook ${i} did not arrive in 10 s`);
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    webhookTimes.push(performance.now() - started);
  }
  return webhookTimes;
}

/**
 * Search over 100,000 messages of one account: 100 bulks of 1,000, one word in a tenth of them. The
 * account is one of its own: the send scenarios leave tens of thousands queued on theirs, and an account
 * holds at most ACCOUNT_MAX_QUEUED (100,000) queued messages (429 QUEUE_FULL past it).
 */
async function measureSearch(baseUrl: string, recipients: string[]): Promise<Load> {
  const account = await activateBenchPhone(baseUrl, '+14155550190', `bench-search-${Date.now()}@example.test`);
  const keyHeader = { 'x-api-key': account.apiKey };
  console.log('writing 100,000 messages for the search scenario…');
  for (let k = 0; k < 100; k++) {
    const res = await post(`${baseUrl}/api/v1/bulk-messages`, keyHeader, {
      from: account.phone,
      recipients,
      content: `Search corpus ${k} ${k % 10 === 0 ? 'needle' : 'haystack'}`,
    });
    if (res.status !== 201) throw new Error(`search corpus bulk answered ${res.status}: ${await res.text()}`);
  }
  // Rows written in seconds leave the planner's statistics stale until autovacuum's next ANALYZE.
  await analyze(baseUrl);
  const searchTimes: number[] = [];
  const searchStarted = performance.now();
  for (let i = 0; i < 100; i++) {
    const q = i % 2 === 0 ? 'needle' : '+14155550';
    const started = performance.now();
    const res = await fetch(`${baseUrl}/api/v1/messages?q=${encodeURIComponent(q)}&limit=20`, { headers: keyHeader });
    if (res.status !== 200) throw new Error(`search answered ${res.status}`);
    await res.arrayBuffer();
    searchTimes.push(performance.now() - started);
  }
  return summary(searchTimes, (performance.now() - searchStarted) / 1000);
}

/** The run as written to bench/results/latest.json. */
function resultsOf(
  database: 'postgres' | 'pglite',
  { loads, cpu, rssMb }: Measured,
  rest: { bulk: Load; search: Load; dispatchTimes: number[]; webhookTimes: number[] },
) {
  const { ping, ping_direct: pingDirect, send_one_account: sentOne, send_many_accounts: sentMany, heartbeat } = loads;
  return {
    at: new Date().toISOString(),
    machine: machineOf(),
    database,
    connections: CONNECTIONS,
    duration_s: DURATION_S,
    scenarios: {
      ping,
      ping_direct: pingDirect,
      ...(loads.db_ceiling ? { db_ceiling: loads.db_ceiling } : {}),
      send_one_account: sentOne,
      send_many_accounts: sentMany,
      heartbeat,
      bulk: rest.bulk,
      search: rest.search,
    },
    ratios: ratiosOf(loads),
    dispatch_latency_ms: { p50: percentile(rest.dispatchTimes, 50), p99: percentile(rest.dispatchTimes, 99) },
    webhook_latency_ms: { p50: percentile(rest.webhookTimes, 50), p99: percentile(rest.webhookTimes, 99) },
    rss_mb_max: Math.round(rssMb),
    cpu_us_per_request: cpu,
  };
}

type Results = ReturnType<typeof resultsOf>;

/** The machine, with its load when the run began: on a shared machine, figures from a busy one are not comparable. */
function machineOf() {
  return {
    cpus: os.cpus().length,
    cpu: os.cpus()[0]?.model ?? 'unknown',
    memory_gb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    load_average_at_start: LOAD_AT_START,
  };
}

const LOAD_AT_START = os.loadavg().map((load) => Math.round(load * 100) / 100);

function printTable(results: Results): void {
  console.log(
    `\nSimgate benchmark (${results.database}, Node ${process.version}, ${CONNECTIONS} connections, ${DURATION_S} s, ${results.machine.cpus} cores)`,
  );
  console.log('scenario              req/s     p50 ms   p99 ms   errors   main µs/req   PG µs/req   load gen µs/req');
  const cpu: Record<string, { server_main_us: number; postgres_us: number; loadgen_us: number }> =
    results.cpu_us_per_request;
  for (const [name, s] of Object.entries(results.scenarios)) {
    const used = cpu[name];
    const cpuColumns = used
      ? `${String(used.server_main_us).padStart(13)} ${String(used.postgres_us).padStart(11)} ${String(used.loadgen_us).padStart(17)}`
      : '';
    console.log(
      `${name.padEnd(20)} ${s.rps.toFixed(0).padStart(7)} ${s.p50_ms.toFixed(1).padStart(9)} ${s.p99_ms.toFixed(1).padStart(8)} ${String(s.errors).padStart(8)}${cpuColumns}`,
    );
  }
}

/** Each target of TARGETS: its name, whether the run met it, and the figure. */
function checksOf(database: 'postgres' | 'pglite', results: Results): Array<[string, boolean, string]> {
  const {
    ping,
    ping_direct: pingDirect,
    send_one_account: sentOne,
    send_many_accounts: sentMany,
    heartbeat,
    bulk,
  } = results.scenarios;
  const ratioTargets: Record<string, number> = TARGETS[database];
  return [
    ...Object.entries(ratioTargets).map(([name, target]): [string, boolean, string] => {
      const value = results.ratios[name as keyof typeof results.ratios];
      if (value === null) return [`${name} ≥ ${target}`, false, 'not measured'];
      return [`${name} ≥ ${target}`, value >= target, `${value.toFixed(2)}×`];
    }),
    [
      `dispatch p50 ≤ ${TARGETS.dispatch_p50_ms} ms`,
      results.dispatch_latency_ms.p50 <= TARGETS.dispatch_p50_ms,
      `${results.dispatch_latency_ms.p50.toFixed(1)} ms`,
    ],
    [
      `dispatch p99 ≤ ${TARGETS.dispatch_p99_ms} ms`,
      results.dispatch_latency_ms.p99 <= TARGETS.dispatch_p99_ms,
      `${results.dispatch_latency_ms.p99.toFixed(1)} ms`,
    ],
    [
      `webhook p50 ≤ ${TARGETS.webhook_p50_ms} ms`,
      results.webhook_latency_ms.p50 <= TARGETS.webhook_p50_ms,
      `${results.webhook_latency_ms.p50.toFixed(1)} ms (p99 ${results.webhook_latency_ms.p99.toFixed(1)})`,
    ],
    [
      `bulk of 1,000 p50 ≤ ${TARGETS.bulk_p50_ms} ms`,
      bulk.p50_ms <= TARGETS.bulk_p50_ms,
      `${bulk.p50_ms.toFixed(0)} ms`,
    ],
    [
      `search over 100,000 p50 ≤ ${TARGETS.search_p50_ms} ms`,
      results.scenarios.search.p50_ms <= TARGETS.search_p50_ms,
      `${results.scenarios.search.p50_ms.toFixed(1)} ms`,
    ],
    [`server RSS ≤ ${TARGETS.rss_mb} MB`, results.rss_mb_max <= TARGETS.rss_mb, `${results.rss_mb_max} MB`],
    [
      'no failed requests under load',
      [sentOne, sentMany, heartbeat, ping, pingDirect].every((s) => s.errors === 0),
      `${sentOne.errors + sentMany.errors + heartbeat.errors + ping.errors + pingDirect.errors} errors`,
    ],
  ];
}

await main();
