import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from './database';
import { until } from './poll';
import { built, type Running, startServer } from './start-server';

type WebConcurrency = (env: Record<string, string | undefined>) => number;
let webConcurrency: WebConcurrency;

beforeAll(async () => {
  const file = pathToFileURL(path.resolve(import.meta.dirname, '..', 'scripts', 'serve.mjs')).href;
  ({ webConcurrency } = (await import(file)) as { webConcurrency: WebConcurrency });
});

describe('WEB_CONCURRENCY', () => {
  const postgresUrl = 'postgres://localhost/simgate';

  it('is one process per core with PostgreSQL, one with the embedded database', () => {
    expect(webConcurrency({ DATABASE_URL: postgresUrl })).toBe(Math.min(os.availableParallelism(), 64));
    expect(webConcurrency({})).toBe(1);
    expect(webConcurrency({ DATABASE_URL: postgresUrl, WEB_CONCURRENCY: ' 3 ' })).toBe(3);
    expect(webConcurrency({ WEB_CONCURRENCY: '1' })).toBe(1);
  });

  it('refuses a value it cannot run with, naming it', () => {
    for (const value of ['0', '-1', '1.5', 'two', '65']) {
      expect(() => webConcurrency({ DATABASE_URL: postgresUrl, WEB_CONCURRENCY: value }), value).toThrowError(
        new RegExp(`WEB_CONCURRENCY must be a whole number from 1 to 64, not "${value}"`),
      );
    }
    expect(() => webConcurrency({ WEB_CONCURRENCY: '2' })).toThrowError(/needs DATABASE_URL/);
  });
});

/** The pids of the processes `pid` started. */
function childrenOf(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((line) => Number(line.trim()))
      .filter((child) => child > 0);
  } catch {
    return []; // ps exits 1 when there are none
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * `npm start` with WEB_CONCURRENCY=2 on PostgreSQL (a database of its own on the test server, dropped
 * after): two web processes on one port, ready once both are, /metrics summing both, a process that
 * dies replaced, and SIGTERM ending them all. Needs a build (test/start-server.ts).
 */
describe.runIf(built && testDatabaseUrl())('npm start with two web processes', () => {
  const adminUrl = testDatabaseUrl() as URL;
  const name = `simgate_cluster_${randomBytes(4).toString('hex')}`;
  let server: Running;

  async function admin(statement: string) {
    const client = postgres(adminUrl.toString(), { max: 1, onnotice: () => {} });
    try {
      await client.unsafe(statement);
    } finally {
      await client.end();
    }
  }

  beforeAll(async () => {
    await admin(`create database ${name}`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    server = await startServer(
      {
        DATABASE_URL: url.toString(),
        APP_SECRET: 'cluster-test-secret-cluster-test-secret-0123456789',
        WEB_CONCURRENCY: '2',
      },
      false,
    );
  }, 240_000);

  afterAll(async () => {
    if (server && server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    await admin(`drop database if exists ${name} with (force)`);
  }, 90_000);

  const requestsCounted = async () => {
    const text = await (await fetch(`${server.baseUrl}/metrics`)).text();
    return text
      .split('\n')
      .filter((line) => line.startsWith('simgate_http_requests_total{') && line.includes('/api/health'))
      .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
  };

  it('says ready once both processes are, and serves from both', async () => {
    expect(server.output()).toContain(`Simgate ready on ${server.baseUrl} (2 web processes)`);
    const pid = server.child.pid!;
    expect(childrenOf(pid)).toHaveLength(2);
    // Each health check is counted by the process that answered it; the scrape sums both processes.
    const before = await requestsCounted();
    const checks = 40;
    // New connections each time (no keep-alive), handed out to the processes in turn.
    for (let i = 0; i < checks; i++) {
      const res = await fetch(`${server.baseUrl}/api/health`, { headers: { connection: 'close' } });
      expect(res.status).toBe(200);
    }
    expect((await requestsCounted()) - before).toBe(checks);
    // Global gauges are read once, not summed: one line per status, as with one process.
    const text = await (await fetch(`${server.baseUrl}/metrics`)).text();
    expect(text.match(/^simgate_build_info\{.*\} 1$/m)).not.toBeNull();
    // Each process's event-loop delay is its own series, not summed with the other's.
    expect(text).toMatch(/^simgate_eventloop_delay_p99_seconds\{process="0"\} \S+$/m);
    expect(text).toMatch(/^simgate_eventloop_delay_p99_seconds\{process="1"\} \S+$/m);
  });

  it('replaces a process that dies, and keeps answering', async () => {
    const pid = server.child.pid!;
    const [victim] = childrenOf(pid);
    process.kill(victim!, 'SIGKILL');
    await until(
      async () => {
        const children = childrenOf(pid);
        return children.length === 2 && !children.includes(victim!);
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    await until(async () => (await fetch(`${server.baseUrl}/api/health`)).status === 200, { timeoutMs: 60_000 });
    // The replacement takes the slot of the process it replaces: its metrics are process "1" or "0" again.
    await until(
      async () => {
        const text = await (await fetch(`${server.baseUrl}/metrics`)).text();
        const slots = [...text.matchAll(/^simgate_eventloop_delay_p99_seconds\{process="(\d+)"\}/gm)].map((m) => m[1]);
        return slots.sort().join() === '0,1';
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    expect(server.output()).toMatch(new RegExp(`web process ${victim} exited \\(SIGKILL\\): starting another`));
  });

  it('ends every process on SIGTERM, exiting 0', async () => {
    const children = childrenOf(server.child.pid!);
    expect(children).toHaveLength(2);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    await until(async () => children.every((child) => !alive(child)), { timeoutMs: 30_000, intervalMs: 50 });
  });
});
