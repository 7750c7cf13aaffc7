import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Which way imports may go (docs/architecture.md, "Layers"): app → lib/http → lib/<area> → db, pages →
 * components → lib. Read from the source: every runtime import (static, re-export or dynamic; `import
 * type` erases at build and is left out) of every non-test file under app, components, lib and db.
 */

const root = path.resolve(import.meta.dirname, '..');
const SKIP = new Set(['node_modules', '.next', '.next-e2e', '.data', 'dist']);

function sourceFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const relative = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIP.has(entry.name)) found.push(...sourceFiles(relative));
    } else if (/\.(ts|tsx|mts)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) found.push(relative);
  }
  return found;
}

const IMPORT =
  /(?:^|\n)\s*(import|export)\s+(type\s+)?[^'";]*?\sfrom\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The project files (no extension) a file imports at run time. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  const targets: string[] = [];
  for (const match of text.matchAll(IMPORT)) {
    if (match[2]) continue; // import type / export type
    const spec = match[3] ?? match[4] ?? '';
    if (spec.startsWith('@/')) targets.push(spec.slice(2));
    else if (spec.startsWith('.')) targets.push(path.posix.join(path.posix.dirname(file), spec));
  }
  return targets;
}

const edges = ['app', 'components', 'lib', 'db'].flatMap((dir) =>
  sourceFiles(dir).flatMap((from) => importsOf(from).map((to) => ({ from, to }))),
);

/** lib/<area> for a file under lib/, else the top folder (db/schema counts as db). */
function areaOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] === 'lib') return parts.length > 2 ? `lib/${parts[1]}` : 'lib';
  return parts[0] as string;
}

/** The host: it starts the app and serves the direct lanes, so it alone in lib may reach app/. */
const HOST = 'lib/server';
/** Adapters of other wire formats; the rest of lib/ is the domain, which reaches them through registries. */
const ADAPTERS = 'lib/protocols';

function offending(rule: (from: string, to: string) => boolean): string[] {
  const found = new Set<string>();
  for (const { from, to } of edges) if (rule(from, to)) found.add(`${from} → ${to}`);
  return [...found].sort();
}

/**
 * Imports against the layers that the code still has, each named so that none can be added unseen and
 * the list only shrinks: an entry that no longer happens fails the test too. What removes each is in
 * docs/architecture.md ("Layers").
 */
const KNOWN = {
  domainReachingAdapters: [] as string[],
  mutualFolders: ['lib/automation ↔ lib/messages', 'lib/messages ↔ lib/opt-outs', 'lib/messages ↔ lib/phones'],
};

describe('imports go one way', () => {
  it('the import reader sees the imports it must (a check of the check)', () => {
    expect(edges.some(({ from, to }) => from === 'app/api/v1/messages/route.ts' && to.startsWith('lib/'))).toBe(true);
    expect(edges.some(({ from, to }) => from.startsWith('lib/integrations/') && to === 'db/schema')).toBe(true);
  });

  it('lib/ never imports app/ or components/, except the host (lib/server) importing app/', () => {
    expect(
      offending(
        (from, to) =>
          from.startsWith('lib/') && (to.startsWith('components/') || (to.startsWith('app/') && areaOf(from) !== HOST)),
      ),
    ).toEqual([]);
  });

  it('components/ never imports db/; db/ never imports lib/, app/ or components/', () => {
    expect(offending((from, to) => from.startsWith('components/') && to.startsWith('db/'))).toEqual([]);
    expect(
      offending((from, to) => from.startsWith('db/') && /^(lib|app|components)\//.test(to) && to !== 'lib'),
    ).toEqual([]);
  });

  it('only the host imports lib/server', () => {
    expect(offending((from, to) => from.startsWith('lib/') && areaOf(to) === HOST && areaOf(from) !== HOST)).toEqual(
      [],
    );
  });

  it('adapters (lib/protocols) read no table: they import nothing of db/schema, not even a type', () => {
    const reading = new Set<string>();
    for (const file of sourceFiles(ADAPTERS)) {
      const text = fs.readFileSync(path.join(root, file), 'utf8');
      if (/from\s+['"]@\/db\/schema(\/[^'"]*)?['"]/.test(text)) reading.add(file);
    }
    expect([...reading].sort()).toEqual([]);
  });

  it('the domain reaches no adapter: only the known imports still do', () => {
    const reaching = new Set(
      edges
        .filter(
          ({ from, to }) =>
            from.startsWith('lib/') && ![ADAPTERS, HOST].includes(areaOf(from)) && areaOf(to) === ADAPTERS,
        )
        .map(({ from }) => from),
    );
    expect([...reaching].sort()).toEqual(KNOWN.domainReachingAdapters);
  });

  it('every SMS goes out through the pipeline: outside lib/messages, only lib/messages/pipeline of the send is imported', () => {
    const sendModules =
      /^lib\/messages\/(send|bulk|encrypted|accept-batch|plan|outbound-row|gate|eligibility|dry-run|sim-check-sms)$/;
    expect(offending((from, to) => !from.startsWith('lib/messages/') && sendModules.test(to))).toEqual([]);
  });

  it('no two folders of lib/ import each other, but the known pairs', () => {
    const folderEdges = new Set<string>();
    for (const { from, to } of edges) {
      const a = areaOf(from);
      const b = areaOf(to);
      if (a !== b && a.startsWith('lib/') && b.startsWith('lib/')) folderEdges.add(`${a} → ${b}`);
    }
    const mutual = new Set<string>();
    for (const edge of folderEdges) {
      const [a, b] = edge.split(' → ') as [string, string];
      if (folderEdges.has(`${b} → ${a}`)) mutual.add(a < b ? `${a} ↔ ${b}` : `${b} ↔ ${a}`);
    }
    expect([...mutual].sort()).toEqual(KNOWN.mutualFolders);
  });
});
