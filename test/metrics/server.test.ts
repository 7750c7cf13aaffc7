import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@/scripts/free-port';
import { onRealPostgres, testDatabaseUrl } from '../database';
import { until } from '../poll';
import { withTestDatabase } from '../setup-db';
import { built, type Running, startServer } from '../start-server';

const TOKEN = 'metrics-token-for-the-server-test-0123456789';
const SECRET = 'test-app-secret-for-metrics-server-0123456789abcdef';

const { handle } = withTestDatabase();

/** This file's database as a URL for a child process (PostgreSQL only: the embedded one is in memory here). */
function databaseUrl(): string {
  const url = testDatabaseUrl();
  if (!url) throw new Error('PostgreSQL only');
  url.pathname = `/${handle().name}`;
  return url.toString();
}

describe.runIf(built)('GET /metrics on npm start’s server', () => {
  let server: Running;

  beforeAll(async () => {
    const database: Record<string, string> = onRealPostgres()
      ? { DATABASE_URL: databaseUrl(), APP_SECRET: SECRET }
      : {};
    server = await startServer({ ...database, METRICS_TOKEN: TOKEN }, false);
  }, 120_000);

  afterAll(() => {
    server?.stop();
  });

  const scrape = (headers: Record<string, string> = {}) => fetch(`${server.baseUrl}/metrics`, { headers });

  it('answers a loopback client, with what the route bundles and the background work counted in one registry', async () => {
    expect((await fetch(`${server.baseUrl}/api/health`)).status).toBe(200);
    const res = await scrape();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    expect(text).toMatch(
      /simgate_http_requests_total\{surface="dashboard",route="\/api\/health",method="GET",status="2xx"\} [1-9]/,
    );
    // The offline sweep runs at start, from instrumentation.ts: another bundle than the route's.
    expect(text).toMatch(/simgate_background_task_runs_total\{task="offline_sweep",result="ok"\} [1-9]/);
    expect(text).toMatch(
      new RegExp(
        `simgate_build_info\\{version="[^"]+",node="${process.version}",database="${onRealPostgres() ? 'postgresql' : 'pglite'}"\\} 1`,
      ),
    );
    expect(text).toContain('process_resident_memory_bytes');
  });

  it('takes a client behind a proxy for another machine: 401 without the token, 200 with it', async () => {
    const proxied = { 'x-forwarded-for': '203.0.113.7' };
    const refused = await scrape(proxied);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
    expect(await refused.text()).not.toContain('simgate_');
    expect((await scrape({ ...proxied, authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await scrape({ ...proxied, authorization: `Bearer ${TOKEN}` })).status).toBe(200);
  });

  it('refuses a page of another site rebound to 127.0.0.1 (its own Host name)', async () => {
    expect((await scrape({ host: 'attacker.example' })).status).toBe(401);
  });

  it('does not list /metrics as an API operation', async () => {
    const document = await (await fetch(`${server.baseUrl}/api/v1/openapi.json`)).json();
    expect(Object.keys(document.paths)).not.toContain('/metrics');
  });
});

describe.runIf(onRealPostgres())('npm run worker with METRICS_PORT', () => {
  let worker: ChildProcess;
  let port: number;
  let output = '';

  beforeAll(async () => {
    port = await freePort();
    worker = spawn(process.execPath, ['--import', 'tsx', path.join('scripts', 'worker.ts')], {
      cwd: path.resolve(import.meta.dirname, '..', '..'),
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl(),
        APP_SECRET: SECRET,
        APP_URL: 'http://127.0.0.1:3999',
        METRICS_PORT: String(port),
        METRICS_TOKEN: '',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    worker.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    worker.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    await until(() => output.includes('worker serves /metrics'), { timeoutMs: 60_000, intervalMs: 50 });
  }, 90_000);

  afterAll(async () => {
    if (worker && worker.exitCode === null) {
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      worker.kill('SIGTERM');
      await exited;
    }
  });

  it('serves /metrics alone to a loopback client, 404 to a proxied one without a token', async () => {
    const text = await until(async () => {
      const res = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(res.status).toBe(200);
      const body = await res.text();
      return /simgate_background_task_runs_total\{task="offline_sweep",result="ok"\} [1-9]/.test(body) && body;
    });
    expect(text).toContain('database="postgresql"');
    expect((await fetch(`http://127.0.0.1:${port}/api/health`)).status).toBe(404);
    expect(
      (await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { 'x-forwarded-for': '203.0.113.7' } })).status,
    ).toBe(404);
  });
});
