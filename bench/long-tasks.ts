// The long tasks of a CPU profile: `tsx bench/long-tasks.ts <file.cpuprofile> [--over MS] [--last S]`.
// A stretch of samples with no idle one between them is one turn of the event loop's work (or
// several back to back); those longer than --over (default 40 ms) are what an event-loop delay p99
// above that is made of. Prints how many there were, how long, and which functions their time went
// to (self time) and which entries (the frame below the root) began them. --last keeps the profile's
// last S seconds only, and --before S ends the window that many seconds before the profile's end
// (a bench's measured minute, without its shutdown).
import fs from 'node:fs';
import path from 'node:path';

type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[] };

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
}

const frame = (node: Node) => {
  const { functionName, url, lineNumber } = node.callFrame;
  return `${functionName || '(anonymous)'}${url ? ` ${path.basename(url)}:${lineNumber + 1}` : ''}`;
};

function longTasks(file: string, overMs: number, lastS: number, beforeS: number) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const root = profile.nodes[0]!.id;
  const entryOf = (id: number) => {
    let current = id;
    while (parent.get(current) !== undefined && parent.get(current) !== root) current = parent.get(current)!;
    return current;
  };
  const total = profile.timeDeltas.reduce((sum, delta) => sum + delta, 0);
  const until = total - beforeS * 1e6;
  const from = lastS > 0 ? until - lastS * 1e6 : 0;
  const tasks: { ms: number; self: Map<string, number>; entries: Map<string, number> }[] = [];
  let current: (typeof tasks)[number] | undefined;
  let at = 0;
  for (const [index, sample] of profile.samples.entries()) {
    const delta = profile.timeDeltas[index] ?? 0;
    at += delta;
    if (at < from || at > until) continue;
    const node = byId.get(sample)!;
    if (node.callFrame.functionName === '(idle)') {
      if (current && current.ms >= overMs) tasks.push(current);
      current = undefined;
      continue;
    }
    current ??= { ms: 0, self: new Map(), entries: new Map() };
    const ms = delta / 1000;
    current.ms += ms;
    current.self.set(frame(node), (current.self.get(frame(node)) ?? 0) + ms);
    const entry = frame(byId.get(entryOf(sample))!);
    current.entries.set(entry, (current.entries.get(entry) ?? 0) + ms);
  }
  const sum = (maps: Map<string, number>[]) => {
    const all = new Map<string, number>();
    for (const map of maps) for (const [key, ms] of map) all.set(key, (all.get(key) ?? 0) + ms);
    return [...all].sort((a, b) => b[1] - a[1]);
  };
  const lengths = tasks.map((task) => task.ms).sort((a, b) => a - b);
  console.log(
    `${file}: ${tasks.length} stretches over ${overMs} ms in ${((until - Math.max(0, from)) / 1e6).toFixed(0)} s` +
      (lengths.length
        ? `, median ${lengths[lengths.length >> 1]!.toFixed(0)} ms, longest ${lengths.at(-1)!.toFixed(0)} ms`
        : ''),
  );
  const inTasks = lengths.reduce((s, ms) => s + ms, 0);
  console.log('  began by (entry frame, ms):');
  for (const [key, ms] of sum(tasks.map((task) => task.entries)).slice(0, 12)) {
    console.log(`    ${((ms / inTasks) * 100).toFixed(1).padStart(5)} %  ${key}`);
  }
  console.log('  self time:');
  for (const [key, ms] of sum(tasks.map((task) => task.self)).slice(0, 25)) {
    console.log(`    ${((ms / inTasks) * 100).toFixed(1).padStart(5)} %  ${key}`);
  }
}

const files = process.argv
  .slice(2)
  .filter((arg, index, all) => !arg.startsWith('--') && !all[index - 1]?.startsWith('--'));
for (const file of files) longTasks(file, option('--over', 40), option('--last', 0), option('--before', 0));
