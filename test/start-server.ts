import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { freePort } from '@/scripts/free-port';
import { eventually } from './fixtures/tls/receiver';

/**
 * `npm start`'s real server (scripts/start.mjs around a production build) for tests. Needs a
 * build: set NEXT_DIST_DIR to a folder holding one
 * (`NEXT_DIST_DIR=.next-e2e node node_modules/next/dist/bin/next build`); tests skip without it
 * (`describe.runIf(built)`).
 */

const root = path.resolve(import.meta.dirname, '..');
const distDir = process.env.NEXT_DIST_DIR;

/** Whether NEXT_DIST_DIR names a folder holding a production build. */
export const built = Boolean(distDir && fs.existsSync(path.join(root, distDir, 'BUILD_ID')));

export type Running = {
  baseUrl: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  stderr: () => string;
  /** Everything it printed, stdout and stderr. */
  output: () => string;
  /** Kills it (SIGKILL) if it still runs: for tests that end it however they end. */
  stop: () => void;
};

/**
 * `npm start`'s server as a child process, on its own data folder unless `env` names one; its
 * output is collected (stderr echoed too with `echo`).
 */
export function spawnStart(env: Record<string, string>, echo = false) {
  const child = spawn(process.execPath, [path.join(root, 'scripts', 'start.mjs')], {
    cwd: root,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      // One web process unless the test asks for more (test/web-concurrency-server.test.ts): a test
      // reads one process's output and state.
      WEB_CONCURRENCY: '1',
      ...env,
      DATA_DIR: env.DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'simgate-start-')),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  child.stdout?.on('data', (chunk: Buffer) => {
    output.stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output.stderr += chunk.toString();
    if (echo) process.stderr.write(chunk);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output, exited };
}

/**
 * Starts the server on a free port with `env` (on the embedded database unless `env` names a
 * DATABASE_URL, then in server mode with APP_URL its own address unless `env` says otherwise) and
 * waits until it says it is ready and answers its health check.
 */
export async function startServer(env: Record<string, string>, echo = true): Promise<Running> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const serverMode: Record<string, string> = env.DATABASE_URL ? { APP_URL: baseUrl } : {};
  const { child, output, exited } = spawnStart({ DATABASE_URL: '', ...serverMode, ...env, PORT: String(port) }, echo);
  const stop = () => {
    if (child.exitCode === null) child.kill('SIGKILL');
  };
  // "ready" comes once the app has started (its database open and migrated): it answers at once then.
  try {
    await eventually(async () => {
      if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${output.stderr}`);
      return output.stdout.includes(`Simgate ready on ${baseUrl}`);
    }, 90_000);
  } catch (error) {
    stop();
    throw error;
  }
  expect((await fetch(`${baseUrl}/api/health`)).status).toBe(200);
  return {
    baseUrl,
    child,
    exited,
    stderr: () => output.stderr,
    output: () => output.stdout + output.stderr,
    stop,
  };
}
