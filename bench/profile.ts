// A CPU profile of the server under one scenario: `tsx bench/profile.ts ping|ping_direct|send|heartbeat|bulk [seconds]`.
// Starts the built server with --cpu-prof (on BENCH_DATABASE_URL, else embedded), drives the
// scenario, stops the server and prints where its main thread spent its self time, by area.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { activateBenchPhone } from './activate';
import { analyze, load, type NextRequest, percentile, post, recipient } from './load';
import { benchServerEnv, startServer } from './server';

type Node = { id: number; callFrame: { functionName: string; url: string }; children?: number[] };
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[] };

const AREAS: Array<[string, RegExp]> = [
  // Our sources, or the build's chunks named after them (lib_…, app_…, db_…); never a package's
  // own lib/ folder (Next's dist/server/lib is Next).
  ['ours (lib, app, db)', /^(?!.*node_modules).*(\/(lib|app|db)\/|\/server\/chunks\/(ssr\/)?(lib|app|db)_)/],
  ['next', /node_modules\/next\//],
  ['drizzle', /drizzle-orm/],
  ['postgres driver', /node_modules\/postgres\//],
  ['zod', /node_modules\/zod/],
  ['libphonenumber', /libphonenumber/],
  ['react', /node_modules\/react/],
  ['other packages', /node_modules\//],
  ['node internals', /^node:|^internal\//],
];

function areaOf(node: Node): string {
  const { url, functionName } = node.callFrame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  return AREAS.find(([, pattern]) => pattern.test(url))?.[0] ?? 'unattributed bundles';
}

async function main() {
  const scenario = process.argv[2] ?? 'send';
  const seconds = Number(process.argv[3] ?? 8);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'simgate-prof-'));
  const spawned = performance.now();
  // Samples before the measured load (start-up, compilation, the warm-up) are left out.
  let measuredFromMs = 0;
  let measuredRequests = 0;
  let measuredUntilMs = Number.POSITIVE_INFINITY;
  const measure = async (url: string, next: NextRequest) => {
    await load(url, next, 3);
    // As `npm run bench` does: planner statistics, as autovacuum would have within a minute.
    await analyze(server.baseUrl);
    measuredFromMs = performance.now() - spawned;
    const result = await load(url, next, seconds);
    measuredUntilMs = performance.now() - spawned;
    measuredRequests = result.rps * seconds;
    console.log(result);
  };
  const server = await startServer(
    {
      ...benchServerEnv(),
    },
    ['--cpu-prof', `--cpu-prof-dir=${dir}`],
  );
  let n = 0;
  try {
    if (scenario === 'ping') {
      await measure(`${server.baseUrl}/api/bench/bare`, () => ({ headers: {}, body: '{"ping":true}' }));
    } else if (scenario === 'ping_direct') {
      // The same bare handler on npm start's direct lane (lib/server/direct-routes.ts).
      await measure(`${server.baseUrl}/api/bench/direct`, () => ({ headers: {}, body: '{"ping":true}' }));
    } else if (scenario === 'heartbeat') {
      const phones = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          activateBenchPhone(server.baseUrl, `+1415555${String(3000 + i)}`, `prof-hb-${i}-${Date.now()}@example.test`),
        ),
      );
      await measure(`${server.baseUrl}/api/v1/heartbeats`, () => {
        const phone = phones[n++ % phones.length]!;
        return {
          headers: { 'x-api-key': phone.deviceKey },
          body: JSON.stringify({ phone: phone.phone, status: 'online', battery: 50 + (n % 50) }),
        };
      });
    } else if (scenario === 'bulk') {
      // Bulks of 1,000, one after another, as the benchmark's bulk scenario sends them.
      const phone = await activateBenchPhone(server.baseUrl, '+14155550100', `prof-${Date.now()}@example.test`);
      const recipients = Array.from({ length: 1000 }, (_, i) => recipient(i));
      const times: number[] = [];
      measuredFromMs = performance.now() - spawned;
      const until = performance.now() + seconds * 1000;
      while (performance.now() < until) {
        const started = performance.now();
        const res = await post(
          `${server.baseUrl}/api/v1/bulk-messages`,
          { 'x-api-key': phone.apiKey },
          {
            from: phone.phone,
            recipients,
            content: `Profile ${n++}`,
          },
        );
        if (res.status !== 201) throw new Error(`bulk answered ${res.status}: ${await res.text()}`);
        times.push(performance.now() - started);
      }
      measuredUntilMs = performance.now() - spawned;
      measuredRequests = times.length;
      console.log({ bulks: times.length, p50_ms: percentile(times, 50), p99_ms: percentile(times, 99) });
    } else {
      const phone = await activateBenchPhone(server.baseUrl, '+14155550100', `prof-${Date.now()}@example.test`);
      await measure(`${server.baseUrl}/api/v1/messages`, () => ({
        headers: { 'x-api-key': phone.apiKey },
        body: JSON.stringify({ from: phone.phone, to: recipient(n), content: 'Profile', request_id: `p-${n++}` }),
      }));
    }
  } finally {
    await server.stop();
  }
  const files = fs.readdirSync(dir).map((f) => path.join(dir, f));
  // The main server process wrote the largest profile.
  const file = files.sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0]!;
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  // Inclusive time of our own functions (self plus callees), each counted once per sample.
  const inclusiveUs = new Map<string, number>();
  const frameName = (node: Node) =>
    `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.split('/').slice(-2).join('/')}`;
  let at = 0;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (at < measuredFromMs * 1000 || at > measuredUntilMs * 1000) return;
    const us = profile.timeDeltas[i] ?? 0;
    selfUs.set(id, (selfUs.get(id) ?? 0) + us);
    const seen = new Set<string>();
    for (let node = byId.get(id); node; node = byId.get(parentOf.get(node.id) ?? -1)) {
      if (areaOf(node) !== 'ours (lib, app, db)') continue;
      const name = frameName(node);
      if (seen.has(name)) continue;
      seen.add(name);
      inclusiveUs.set(name, (inclusiveUs.get(name) ?? 0) + us);
    }
  });
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  let total = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id)!;
    total += us;
    const area = areaOf(node);
    areas.set(area, (areas.get(area) ?? 0) + us);
    const name = frameName(node);
    functions.set(name, (functions.get(name) ?? 0) + us);
  }
  const idle = areas.get('(idle)') ?? 0;
  const perRequest = (us: number) => (measuredRequests > 0 ? (us / measuredRequests).toFixed(0) : '–');
  console.log(
    `profile ${file}: ${(total / 1e6).toFixed(1)} s sampled from ${measuredFromMs.toFixed(0)} ms to ${measuredUntilMs.toFixed(0)} ms, ${(idle / 1e6).toFixed(1)} s idle`,
  );
  for (const [area, us] of [...areas].sort((a, b) => b[1] - a[1])) {
    console.log(
      `${area.padEnd(28)} ${((100 * us) / (total - idle)).toFixed(1).padStart(5)} % ${perRequest(us).padStart(5)} µs`,
    );
  }
  console.log(`\nbusy ${perRequest(total - idle)} µs a request; top functions (self time, share of busy time):`);
  for (const [name, us] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
    console.log(`${((100 * us) / (total - idle)).toFixed(1).padStart(5)} % ${perRequest(us).padStart(5)} µs  ${name}`);
  }
  console.log('\nour functions, inclusive (self and callees):');
  for (const [name, us] of [...inclusiveUs].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
    console.log(`${((100 * us) / (total - idle)).toFixed(1).padStart(5)} % ${perRequest(us).padStart(5)} µs  ${name}`);
  }
  // PROFILE_OUT=file.json: every function's self µs a request, to compare two scenarios.
  if (process.env.PROFILE_OUT && measuredRequests > 0) {
    fs.writeFileSync(
      process.env.PROFILE_OUT,
      JSON.stringify(Object.fromEntries([...functions].map(([name, us]) => [name, us / measuredRequests]))),
    );
  }
}

await main();
