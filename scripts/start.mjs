// `npm start`: build once if there is no production build yet, then serve it (scripts/serve.mjs).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { serveAll } from './serve.mjs';

const root = path.resolve(import.meta.dirname, '..');
const nextBin = path.join(root, 'node_modules', 'next', 'dist', 'bin', 'next');
const distDir = process.env.NEXT_DIST_DIR || '.next';

if (!fs.existsSync(path.join(root, distDir, 'BUILD_ID'))) {
  console.log('No production build yet: running `next build` once (about a minute)…');
  const build = spawnSync(process.execPath, [nextBin, 'build'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

await serveAll(root, distDir);
