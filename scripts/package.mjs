#!/usr/bin/env node
// `npm run package`: a release that runs with `node` alone, in dist/simgate/ and
// dist/simgate-<version>.tar.gz. It holds Next's standalone server (the production build and the
// runtime dependencies it traced), the server of `npm start` (serve.mjs, started by start.mjs), the
// worker, ops and migrate commands bundled into one file each, and the migrations.
//
//   --reuse-build  package the production build in NEXT_DIST_DIR (default .next) as it is, if it
//                  has its standalone output, rather than build again
//   --out <dir>    write into <dir> instead of dist/
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
const { values: options } = parseArgs({
  options: { 'reuse-build': { type: 'boolean', default: false }, out: { type: 'string', default: 'dist' } },
});
const distDir = process.env.NEXT_DIST_DIR || '.next';
const standalone = path.join(root, distDir, 'standalone');
const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const out = path.resolve(options.out);
const bundle = path.join(out, 'simgate');
const archive = path.join(out, `simgate-${version}.tar.gz`);

/** The packages Next leaves outside its server bundles (next.config.ts): the commands leave them out too. */
const externals = ['@electric-sql/pglite', 'pino', 'postgres'];

/** The commands, each bundled with the code it imports, into `<name>.mjs`. */
const commands = { worker: 'scripts/worker.ts', ops: 'scripts/ops.ts', migrate: 'scripts/migrate.ts' };

function run(command, args, env = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const started = Date.now();
fs.rmSync(bundle, { recursive: true, force: true });
fs.rmSync(archive, { force: true });
if (!options['reuse-build'] || !fs.existsSync(path.join(standalone, distDir, 'BUILD_ID'))) {
  console.log(`Building into ${distDir}…`);
  run(process.execPath, [path.join(root, 'node_modules', 'next', 'dist', 'bin', 'next'), 'build'], {
    NEXT_DIST_DIR: distDir,
  });
}

fs.mkdirSync(out, { recursive: true });
// The traced node_modules link Next's hashed names of the external packages (<distDir>/node_modules):
// the links are copied as they are, relative.
fs.cpSync(standalone, bundle, { recursive: true, verbatimSymlinks: true });
// Of the standalone output the release keeps the build and the runtime dependencies. The rest is
// Next's own server.js and package.json (start.mjs serves it) and whatever the tracer took from the
// project's folder because the app reads files by path: the migrations (copied below), data folders.
const kept = new Set([distDir, 'node_modules']);
for (const entry of fs.readdirSync(bundle)) {
  if (!kept.has(entry)) fs.rmSync(path.join(bundle, entry), { recursive: true, force: true });
}
// The tracer's lists of each route's files, for building the standalone output only.
for (const entry of fs.readdirSync(path.join(bundle, distDir), { withFileTypes: true, recursive: true })) {
  if (entry.isFile() && entry.name.endsWith('.nft.json')) fs.rmSync(path.join(entry.parentPath, entry.name));
}
fs.cpSync(path.join(root, distDir, 'static'), path.join(bundle, distDir, 'static'), { recursive: true });
if (fs.existsSync(path.join(root, 'public'))) {
  fs.cpSync(path.join(root, 'public'), path.join(bundle, 'public'), { recursive: true });
}
fs.cpSync(path.join(root, 'db', 'migrations'), path.join(bundle, 'db', 'migrations'), { recursive: true });

// The build's record of where it was made: the release names its own folder instead.
const serverFiles = path.join(bundle, distDir, 'required-server-files.json');
fs.writeFileSync(serverFiles, fs.readFileSync(serverFiles, 'utf8').replaceAll(JSON.stringify(root), '"."'));

fs.copyFileSync(path.join(root, 'scripts', 'serve.mjs'), path.join(bundle, 'serve.mjs'));
fs.copyFileSync(path.join(root, 'scripts', 'release', 'start.mjs'), path.join(bundle, 'start.mjs'));
await build({
  entryPoints: Object.fromEntries(Object.entries(commands).map(([name, file]) => [name, path.join(root, file)])),
  outdir: bundle,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  external: externals,
  logLevel: 'warning',
  // Bundled CommonJS code calls require(); the app finds its migrations beside the command (db/client.ts APP_HOME).
  banner: {
    js: [
      "import { createRequire as __simgateRequire } from 'node:module';",
      'const require = __simgateRequire(import.meta.url);',
      'globalThis.__simgateHome = import.meta.dirname;',
    ].join('\n'),
  },
});
fs.writeFileSync(
  path.join(bundle, 'package.json'),
  `${JSON.stringify({ name: 'simgate', version, private: true, type: 'module', simgate: { distDir } }, null, 2)}\n`,
);

run('tar', ['-czf', archive, '-C', out, 'simgate']);

/** Bytes of the files under `dir` (links counted as themselves). */
function sizeOf(dir) {
  let bytes = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) bytes += fs.statSync(path.join(entry.parentPath, entry.name)).size;
  }
  return bytes;
}
const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
console.log(`${path.relative(process.cwd(), bundle) || bundle}: ${mb(sizeOf(bundle))} unpacked`);
console.log(`${path.relative(process.cwd(), archive)}: ${mb(fs.statSync(archive).size)}`);
console.log(`packaged in ${((Date.now() - started) / 1000).toFixed(0)} s`);
