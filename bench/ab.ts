// `npm run bench:ab -- <distA> <distB> [rounds]`: two builds of the app (`NEXT_DIST_DIR=<dist> next
// build`), compared on the same machine in the same minutes. Both servers run at once (on
// BENCH_DATABASE_URL, else each on its own embedded database); each round drives A's ping, B's
// ping, A's send and B's send for one slice each, so that the machine's drift, which on a shared
// machine is larger than most single changes, falls on both alike. Per round it takes each build's
// main-thread CPU per send over its CPU per ping (the framework's cost in the same seconds), and
// prints the mean of B's over A's with a 95 % interval over the rounds. The interval is the point:
// on the 2-core machine of docs/performance.md's tables it is about ±7 % after 24 rounds (the CPU time of one
// slice swings by 15 %), so a change worth a few per cent needs its hot-path microbenchmark, and
// this tells whether a set of them shows up end to end.
import { activateBenchPhone, type BenchPhone } from './activate';
import { analyze, interleaved, type NextRequest, recipient } from './load';
import { benchServerEnv, type Server, startServer } from './server';

type Build = { dist: string; server: Server; phone: BenchPhone };

/** Node flags for one side (`BENCH_AB_NODE_ARGS_A`/`_B`): then its node runs with these instead of `npm start`'s. */
function nodeArgsOf(label: string): string[] {
  return (process.env[`BENCH_AB_NODE_ARGS_${label}`] ?? '').split(' ').filter(Boolean);
}

async function start(dist: string, label: string): Promise<Build> {
  const server = await startServer(
    {
      NEXT_DIST_DIR: dist,
      ...benchServerEnv(),
    },
    nodeArgsOf(label),
  );
  const phone = await activateBenchPhone(
    server.baseUrl,
    label === 'A' ? '+14155550170' : '+14155550171',
    `ab-${label}-${Date.now()}@example.test`,
  );
  return { dist, server, phone };
}

function mean(values: number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** Mean and half-width of its 95 % interval (t ≈ 2 for the rounds this runs). */
function interval(values: number[]): { mean: number; half: number } {
  const m = mean(values);
  const variance = values.reduce((sum, value) => sum + (value - m) ** 2, 0) / Math.max(1, values.length - 1);
  return { mean: m, half: (2 * Math.sqrt(variance)) / Math.sqrt(values.length) };
}

async function main() {
  const [distA, distB] = process.argv.slice(2, 4);
  const rounds = Number(process.argv[4] ?? 12);
  if (!distA || !distB) throw new Error('usage: tsx bench/ab.ts <distA> <distB> [rounds]');
  // One round has no spread to take an interval from (it would print ±0).
  if (!Number.isInteger(rounds) || rounds < 2) throw new Error('rounds: a whole number, 2 or more');
  const builds = [await start(distA, 'A'), await start(distB, 'B')] as const;
  try {
    let n = 0;
    const ping: NextRequest = () => ({ headers: {}, body: '{"ping":true}' });
    const send =
      (build: Build): NextRequest =>
      () => ({
        headers: { 'x-api-key': build.phone.apiKey },
        body: JSON.stringify({
          from: build.phone.phone,
          to: recipient(n),
          content: 'Benchmark message',
          request_id: `ab-${n++}`,
        }),
      });
    const [a, b] = builds;
    const bare = (build: Build) => ({
      url: `${build.server.baseUrl}/api/bench/bare`,
      next: ping,
      pid: build.server.process.pid,
    });
    const sends = (build: Build) => ({
      url: `${build.server.baseUrl}/api/v1/messages`,
      next: send(build),
      pid: build.server.process.pid,
    });
    const scenarios = { A_ping: bare(a), B_ping: bare(b), A_send: sends(a), B_send: sends(b) };
    console.log(`warming up; then ${rounds} rounds of 4 slices…`);
    await interleaved(scenarios, undefined, 4);
    // Planner statistics, as bench/run.ts takes them after its warm-up: without them each send's
    // request_id check reads every message of the account, and sends slow down round after round.
    await Promise.all(builds.map((build) => analyze(build.server.baseUrl)));
    const relative: number[] = [];
    const perRound: Array<Record<string, number>> = [];
    for (let round = 0; round < rounds; round++) {
      const { cpu, loads } = await interleaved(scenarios, undefined, 2);
      const errors = Object.values(loads).reduce((sum, load) => sum + load.errors, 0);
      if (errors > 0) throw new Error(`round ${round}: ${errors} failed requests`);
      const costA = cpu.A_send.server_main_us / cpu.A_ping.server_main_us;
      const costB = cpu.B_send.server_main_us / cpu.B_ping.server_main_us;
      relative.push(costB / costA);
      perRound.push({
        A_ping_us: cpu.A_ping.server_main_us,
        A_send_us: cpu.A_send.server_main_us,
        B_ping_us: cpu.B_ping.server_main_us,
        B_send_us: cpu.B_send.server_main_us,
        A_rps_ratio: Math.round((100 * loads.A_send.rps) / loads.A_ping.rps) / 100,
        B_rps_ratio: Math.round((100 * loads.B_send.rps) / loads.B_ping.rps) / 100,
      });
    }
    console.table(perRound);
    const { mean: m, half } = interval(relative);
    const column = (key: string) => mean(perRound.map((row) => row[key] as number));
    console.log(
      `A ${distA}: send ${column('A_send_us').toFixed(0)} µs / ping ${column('A_ping_us').toFixed(0)} µs, req/s ratio ${column('A_rps_ratio').toFixed(2)}`,
    );
    console.log(
      `B ${distB}: send ${column('B_send_us').toFixed(0)} µs / ping ${column('B_ping_us').toFixed(0)} µs, req/s ratio ${column('B_rps_ratio').toFixed(2)}`,
    );
    console.log(
      `B's send costs ${(100 * m).toFixed(1)} % of A's main-thread CPU (±${(100 * half).toFixed(1)}, 95 %), each against its own ping`,
    );
    // What the main thread's CPU leaves out (other threads, waiting for a CPU) shows in req/s.
    const rps = interval(perRound.map((row) => (row.B_rps_ratio as number) - (row.A_rps_ratio as number)));
    console.log(`B's send_vs_ping minus A's: ${rps.mean.toFixed(3)} (±${rps.half.toFixed(3)}, 95 %)`);
  } finally {
    await Promise.all(builds.map((build) => build.server.stop()));
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
