// `npm run bench`: throughput of POST /api/v1/messages against a bare route handler in the same
// run, long-poll wake-up latency, and bulk sends of 1,000. Targets (2 cores): messages ≥ 0.8× bare,
// long-poll median ≤ 50 ms, bulk of 1,000 ≤ 300 ms, a search over 100,000 messages of one account
// (GET /api/v1/messages?q=) p50 ≤ 50 ms. With BENCH_DATABASE_URL the server runs on
// that PostgreSQL database (server mode); otherwise on a throwaway embedded database.
import fs from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import postgres from 'postgres';
import { activateBenchPhone } from './activate';
import { startServer } from './server';

const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);

type Load = { requestsPerSecond: number; p50: number; p99: number; non2xx: number; errors: number };

async function load(url: string, headers: Record<string, string>, body: string, duration: number): Promise<Load> {
  const result = await autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
    connections: CONNECTIONS,
    duration,
  });
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))] ?? Number.NaN;

async function post(url: string, key: string, body: unknown): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
  });
}

async function main() {
  const dbUrl = process.env.BENCH_DATABASE_URL;
  const server = await startServer({
    BENCH: '1',
    API_KEY_RATE_LIMIT: '0',
    STARTER_CREDITS: '100000000',
    ...(dbUrl ? { DATABASE_URL: dbUrl, APP_SECRET: 'bench-secret-bench-secret-bench-secret-0', DEV_INBOX: '1' } : {}),
  });
  try {
    const { baseUrl } = server;
    const email = `bench-${Date.now()}@example.test`;
    // One phone takes the load; a second, with an empty queue, measures long-poll wake-ups.
    const account = await activateBenchPhone(baseUrl, '+14155550100', email);
    const poller = await activateBenchPhone(baseUrl, '+14155550101', email);
    const bareUrl = `${baseUrl}/api/bench/bare`;
    const sendUrl = `${baseUrl}/api/v1/messages`;
    const messageBody = JSON.stringify({ from: account.phone, to: '+14155550123', content: 'Benchmark message' });
    const keyHeader = { 'x-api-key': account.apiKey };
    // Raise the poller's pacing so claims are not the limit in the latency run.
    await fetch(`${baseUrl}/api/v1/phones/${poller.phoneId}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', ...keyHeader },
      body: JSON.stringify({ messages_per_minute: 60 }),
    });

    console.log(`warming up (${CONNECTIONS} connections)…`);
    await load(bareUrl, {}, messageBody, 3);
    await load(sendUrl, keyHeader, messageBody, 3);
    console.log(`measuring ${DURATION_S} s each…`);
    const bare = await load(bareUrl, {}, messageBody, DURATION_S);
    const send = await load(sendUrl, keyHeader, messageBody, DURATION_S);

    const wakeUps: number[] = [];
    for (let i = 0; i < 20; i++) {
      const claimStarted = performance.now();
      const claim = post(`${baseUrl}/api/v1/device/outbox/claim?wait=10`, poller.deviceKey, { limit: 1 });
      await new Promise((resolve) => setTimeout(resolve, 100)); // let the claim start waiting
      const sentAt = performance.now();
      const sent = await post(sendUrl, account.apiKey, {
        from: poller.phone,
        to: '+14155550123',
        content: `poll ${i}`,
      });
      if (sent.status !== 201) throw new Error(`send answered ${sent.status}`);
      const claimRes = await claim;
      const claimed = (await claimRes.json()) as { data: unknown[] };
      if (claimed.data?.length !== 1) {
        throw new Error(
          `long-poll claim ${i} answered ${claimRes.status} after ${(performance.now() - claimStarted).toFixed(0)} ms: ${JSON.stringify(claimed).slice(0, 300)}`,
        );
      }
      wakeUps.push(performance.now() - sentAt);
    }

    const recipients = Array.from({ length: 1000 }, (_, i) => `+1415555${String(i).padStart(4, '0')}`);
    const bulkTimes: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      const res = await post(`${baseUrl}/api/v1/bulk-messages`, account.apiKey, {
        from: account.phone,
        recipients,
        content: `Bulk ${i}`,
      });
      if (res.status !== 201) throw new Error(`bulk answered ${res.status}: ${await res.text()}`);
      bulkTimes.push(performance.now() - started);
    }

    // Search over 100,000 messages of one account: 100 bulks of 1,000, one word in a tenth of them.
    console.log('writing 100,000 messages for the search scenario…');
    for (let k = 0; k < 100; k++) {
      const res = await post(`${baseUrl}/api/v1/bulk-messages`, account.apiKey, {
        from: account.phone,
        recipients,
        content: `Search corpus ${k} ${k % 10 === 0 ? 'needle' : 'haystack'}`,
      });
      if (res.status !== 201) throw new Error(`search corpus bulk answered ${res.status}: ${await res.text()}`);
    }
    // 100,000 rows written in seconds leave the planner's statistics stale until autovacuum's next
    // ANALYZE (within a minute on a real server); take that minute off the wait, not off the query.
    if (dbUrl) {
      const admin = postgres(dbUrl, { max: 1, onnotice: () => {} });
      await admin`analyze messages`;
      await admin.end();
    }
    const searchTimes: number[] = [];
    for (let i = 0; i < 100; i++) {
      const q = i % 2 === 0 ? 'needle' : '+14155550';
      const started = performance.now();
      const res = await fetch(`${sendUrl}?q=${encodeURIComponent(q)}&limit=20`, { headers: keyHeader });
      if (res.status !== 200) throw new Error(`search answered ${res.status}`);
      await res.arrayBuffer();
      searchTimes.push(performance.now() - started);
    }

    const ratio = send.requestsPerSecond / bare.requestsPerSecond;
    const results = {
      at: new Date().toISOString(),
      database: dbUrl ? 'postgres' : 'pglite',
      connections: CONNECTIONS,
      duration_s: DURATION_S,
      bare,
      send,
      ratio,
      long_poll_median_ms: median(wakeUps),
      bulk_1000_median_ms: median(bulkTimes),
      search_100k_ms: { p50: percentile(searchTimes, 50), p99: percentile(searchTimes, 99) },
    };
    const checks = [
      [
        'POST /api/v1/messages ≥ 0.8× bare',
        ratio >= 0.8,
        `${ratio.toFixed(2)}× (${send.requestsPerSecond.toFixed(0)} vs ${bare.requestsPerSecond.toFixed(0)} req/s)`,
      ],
      [
        'long-poll wake-up median ≤ 50 ms',
        results.long_poll_median_ms <= 50,
        `${results.long_poll_median_ms.toFixed(1)} ms`,
      ],
      ['bulk of 1,000 ≤ 300 ms', results.bulk_1000_median_ms <= 300, `${results.bulk_1000_median_ms.toFixed(0)} ms`],
      [
        'search over 100,000 messages p50 ≤ 50 ms',
        results.search_100k_ms.p50 <= 50,
        `p50 ${results.search_100k_ms.p50.toFixed(1)} ms, p99 ${results.search_100k_ms.p99.toFixed(1)} ms`,
      ],
      [
        'no failed sends under load',
        send.non2xx === 0 && send.errors === 0,
        `${send.non2xx} non-2xx, ${send.errors} errors`,
      ],
    ] as const;
    console.log(`\nSimgate benchmark (${results.database}, ${CONNECTIONS} connections, ${DURATION_S} s)`);
    for (const [name, ok, detail] of checks) console.log(`${ok ? 'PASS' : 'MISS'}  ${name}: ${detail}`);
    const outDir = path.join(import.meta.dirname, 'results');
    fs.mkdirSync(outDir, { recursive: true });
    fs.writeFileSync(path.join(outDir, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
    process.exitCode = checks.every(([, ok]) => ok) ? 0 : 1;
  } finally {
    await server.stop();
  }
}

await main();
