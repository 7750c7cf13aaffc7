// `npm start`: build once if there is no production build yet, then serve it.
// Local mode listens on 127.0.0.1 unless HOST says otherwise; PORT defaults to 3000.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const next = path.join(root, 'node_modules', 'next', 'dist', 'bin', 'next');

if (!fs.existsSync(path.join(root, '.next', 'BUILD_ID'))) {
  console.log('No production build yet: running `next build` once (about a minute)…');
  const build = spawnSync(process.execPath, [next, 'build'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const host = process.env.HOST ?? '127.0.0.1';
const port = process.env.PORT ?? '3000';
const server = spawn(process.execPath, [next, 'start', '-H', host, '-p', port], { cwd: root, stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
