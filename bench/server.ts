import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../scripts/free-port';

const root = path.resolve(import.meta.dirname, '..');
const nextBin = path.join(root, 'node_modules', 'next', 'dist', 'bin', 'next');
const startScript = path.join(root, 'scripts', 'start.mjs');

export type Server = { baseUrl: string; process: ChildProcess; stop: () => Promise<void> };

/**
 * What every benchmark server runs with: the bench routes on, no per-key limit, room to activate
 * hundreds of phones and credits for every send; on BENCH_DATABASE_URL when set (server mode), else
 * on its own embedded database.
 */
export function benchServerEnv(): Record<string, string> {
  const dbUrl = process.env.BENCH_DATABASE_URL;
  return {
    BENCH: '1',
    API_KEY_RATE_LIMIT: '0',
    REGISTER_IP_RATE_LIMIT: '1000000',
    STARTER_CREDITS: '100000000',
    // One web process unless BENCH_WEB_CONCURRENCY says otherwise: figures comparable run to run.
    WEB_CONCURRENCY: process.env.BENCH_WEB_CONCURRENCY ?? '1',
    ...(dbUrl ? { DATABASE_URL: dbUrl, APP_SECRET: 'bench-secret-bench-secret-bench-secret-0', DEV_INBOX: '1' } : {}),
  };
}

/** Creates the server's database when PostgreSQL lacks it, so that the README's command runs on a fresh machine. */
export async function ensureDatabase(url: string): Promise<void> {
  const { default: postgres } = await import('postgres');
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  const admin = postgres(Object.assign(new URL(url), { pathname: '/postgres' }).toString(), {
    max: 1,
    onnotice: () => {},
  });
  try {
    const [found] = await admin`select 1 from pg_database where datname = ${name}`;
    if (!found) await admin.unsafe(`create database "${name.replaceAll('"', '""')}"`);
  } finally {
    await admin.end();
  }
}

/**
 * Builds once if needed, then starts `npm start`'s server on a free port with a throwaway database;
 * `nodeArgs` go to its node (`--cpu-prof`, another heap limit). Without them it runs the very command
 * of `npm start` (package.json), heap limit included, through the shell.
 */
export async function startServer(
  env: Record<string, string>,
  nodeArgs: string[] = [],
  options: { port?: number } = {},
): Promise<Server> {
  // The build `npm start` serves: NEXT_DIST_DIR's, as for start.mjs, else .next.
  if (!fs.existsSync(path.join(root, process.env.NEXT_DIST_DIR || '.next', 'BUILD_ID'))) {
    const build = spawnSync(process.execPath, [nextBin, 'build'], { cwd: root, stdio: 'inherit' });
    if (build.status !== 0) throw new Error('next build failed');
  }
  if (env.DATABASE_URL) await ensureDatabase(env.DATABASE_URL);
  const port = options.port ?? (await freePort());
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'simgate-bench-'));
  const startCommand = (
    JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      scripts: { start: string };
    }
  ).scripts.start;
  // `exec`: the shell becomes node, so the pid is the server's (RSS samples, SIGTERM).
  const [command, args] =
    nodeArgs.length > 0
      ? [process.execPath, [...nodeArgs, startScript]]
      : ['/bin/sh', ['-c', `exec ${startCommand.replace(/^node /, `"${process.execPath}" `)}`]];
  const child = spawn(command, args, {
    cwd: root,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      PORT: String(port),
      // Server mode requires the public origin: here, the server's own.
      APP_URL: `http://127.0.0.1:${port}`,
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  let last = 'no answer yet';
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    // Each probe is bounded (the first opens, and on a first start creates, the database: seconds),
    // so that one that hangs cannot outlast the deadline unnoticed.
    const ready = await fetch(`${baseUrl}/api/health`, { signal: AbortSignal.timeout(30_000) })
      .then(async (res) => {
        last = `${res.status} ${(await res.text()).slice(0, 300)}`;
        return res.ok;
      })
      .catch((error: unknown) => {
        // fetch's own message is only "fetch failed": the reason is its cause.
        const cause = (error as { cause?: unknown }).cause;
        last = cause ? `${String(error)} (${String(cause)})` : String(error);
        return false;
      });
    if (ready) break;
    if (Date.now() > deadline) {
      child.kill('SIGTERM');
      throw new Error(`server did not become ready in 60 s (last probe: ${last})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    baseUrl,
    process: child,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
