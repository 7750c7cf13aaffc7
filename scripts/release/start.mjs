// A release's server (`node start.mjs` in the folder `npm run package` makes): the production build
// served by scripts/serve.mjs, as `npm start` serves it, with nothing to build or install.
//
// Node takes its heap limits only on its command line, so this process starts the server as its
// child with the flags of package.json's `start` (HEAP_MB, default 256; SEMI_SPACE_MB, default 64
// with DATABASE_URL, else 8), passes SIGTERM and SIGINT on and exits with it. Started with
// `--max-old-space-size` already given, it serves in this process.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = import.meta.dirname;

if (!process.execArgv.some((flag) => flag.startsWith('--max-old-space-size'))) {
  const heapMb = process.env.HEAP_MB?.trim() || '256';
  const semiSpaceMb = process.env.SEMI_SPACE_MB?.trim() || (process.env.DATABASE_URL?.trim() ? '64' : '8');
  // Its own process group, so that a terminal's Ctrl-C reaches it once, through this process; the
  // IPC channel tells it when this process is gone however it ended.
  const child = spawn(
    process.execPath,
    [
      `--max-old-space-size=${heapMb}`,
      `--max-semi-space-size=${semiSpaceMb}`,
      ...process.execArgv,
      import.meta.filename,
    ],
    { stdio: ['inherit', 'inherit', 'inherit', 'ipc'], detached: true },
  );
  for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal === 'SIGKILL' ? 137 : 1)));
} else {
  // Started by the branch above: its end (even by SIGKILL) ends this server too, gracefully.
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  const { distDir } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).simgate;
  const { serveAll } = await import('./serve.mjs');
  await serveAll(root, distDir);
}
