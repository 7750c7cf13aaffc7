#!/usr/bin/env node
// First-load JavaScript per app route, gzipped: the framework's root chunks plus every chunk the
// route's layouts and page load, each file counted once. Reads a finished production build
// (`npm run build`; NEXT_DIST_DIR picks another build folder) and fails past the budget.
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import zlib from 'node:zlib';

const BUDGET_KB = 200;
const dist = path.resolve(process.env.NEXT_DIST_DIR ?? '.next');
const appDir = path.join(dist, 'server', 'app');

if (!fs.existsSync(appDir)) {
  console.error(`No production build in ${dist}: run \`npm run build\` first.`);
  process.exit(2);
}

const buildManifest = JSON.parse(fs.readFileSync(path.join(dist, 'build-manifest.json'), 'utf8'));
// Polyfills load with `nomodule`: a current browser never fetches them, so they are not counted.
const rootFiles = buildManifest.rootMainFiles ?? [];

const gzipCache = new Map();
function gzipSize(file) {
  if (!gzipCache.has(file)) {
    const full = path.join(dist, file);
    gzipCache.set(file, fs.existsSync(full) ? zlib.gzipSync(fs.readFileSync(full), { level: 9 }).length : 0);
  }
  return gzipCache.get(file);
}

function manifests(dir) {
  const found = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...manifests(full));
    else if (entry.name === 'page_client-reference-manifest.js') found.push(full);
  }
  return found;
}

const rows = [];
for (const file of manifests(appDir)) {
  const sandbox = { globalThis: {} };
  sandbox.globalThis = sandbox;
  vm.runInNewContext(fs.readFileSync(file, 'utf8'), sandbox);
  for (const [page, manifest] of Object.entries(sandbox.__RSC_MANIFEST ?? {})) {
    const route = page.replace(/\/page$/, '') || '/';
    if (route.startsWith('/api') || route.startsWith('/_')) continue;
    const files = new Set(rootFiles);
    for (const chunks of Object.values(manifest.entryJSFiles ?? {})) for (const chunk of chunks) files.add(chunk);
    const bytes = [...files].filter((f) => f.endsWith('.js')).reduce((sum, f) => sum + gzipSize(f), 0);
    rows.push({ route, kb: bytes / 1024 });
  }
}

rows.sort((a, b) => a.route.localeCompare(b.route));
const width = Math.max(...rows.map((row) => row.route.length), 5);
console.log(`${'Route'.padEnd(width)}  First-load JS (gzip)`);
for (const row of rows) {
  const mark = row.kb > BUDGET_KB ? '  over budget' : '';
  console.log(`${row.route.padEnd(width)}  ${row.kb.toFixed(1).padStart(7)} kB${mark}`);
}
const over = rows.filter((row) => row.kb > BUDGET_KB);
if (over.length > 0) {
  console.error(`${over.length} route(s) over the ${BUDGET_KB} kB budget.`);
  process.exit(1);
}
