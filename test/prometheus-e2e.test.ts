import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@/scripts/free-port';
import { createTestCertificates, type Receiver, startReceiver, type TestCertificates } from './fixtures/tls/receiver';
import { METRICS_TOKEN, runMetricsScenario } from './metrics-scenario';
import { until } from './poll';
import { ALERTS_FILE, alertRules, dashboardQueries, withVariables } from './promql';
import { built, type Running, startServer } from './start-server';

/**
 * A real Prometheus (Debian's `prometheus` package; `.ci/run` installs it) scrapes `npm start`'s
 * server every second (with METRICS_TOKEN) with deploy/prometheus/alerts.yml loaded: after a short scenario
 * its HTTP API answers the series the scenario moved, every alert rule is loaded and evaluates
 * healthy, and every dashboard query runs. Needs a build (test/start-server.ts).
 */

const PROMETHEUS = process.env.PROMETHEUS_BIN ?? '/usr/bin/prometheus';

type Vector = { metric: Record<string, string>; value: [number, string] }[];

describe.runIf(built)('Prometheus scraping npm start', () => {
  let certs: TestCertificates;
  let receiver: Receiver;
  let server: Running;
  let prometheus: ChildProcess | undefined;
  let prometheusLog = '';
  let prometheusUrl: string;
  let dir: string;

  async function api<T>(pathname: string, params: Record<string, string> = {}): Promise<T> {
    const res = await fetch(`${prometheusUrl}${pathname}?${new URLSearchParams(params)}`);
    const body = (await res.json()) as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`${pathname} ${JSON.stringify(params)}: ${body.error}`);
    return body.data;
  }

  async function query(expr: string): Promise<Vector> {
    return (await api<{ result: Vector }>('/api/v1/query', { query: expr })).result;
  }

  beforeAll(async () => {
    expect(fs.existsSync(PROMETHEUS), `${PROMETHEUS} is missing: apt-get install prometheus`).toBe(true);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'simgate-prometheus-'));
    certs = createTestCertificates();
    receiver = await startReceiver(certs);
    server = await startServer({ NODE_EXTRA_CA_CERTS: certs.caFile, METRICS_TOKEN }, false);

    const target = new URL(server.baseUrl).host;
    const config = [
      'global: { scrape_interval: 1s, evaluation_interval: 1s }',
      `rule_files: [${JSON.stringify(ALERTS_FILE)}]`,
      'scrape_configs:',
      '  - job_name: simgate',
      `    authorization: { credentials: ${JSON.stringify(METRICS_TOKEN)} }`,
      `    static_configs: [{ targets: [${JSON.stringify(target)}] }]`,
    ].join('\n');
    fs.writeFileSync(path.join(dir, 'prometheus.yml'), `${config}\n`);
    const address = `127.0.0.1:${await freePort()}`;
    prometheusUrl = `http://${address}`;
    prometheus = spawn(
      PROMETHEUS,
      [
        `--config.file=${path.join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${path.join(dir, 'data')}`,
        `--web.listen-address=${address}`,
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    prometheus.stdout?.on('data', (chunk: Buffer) => {
      prometheusLog += chunk.toString();
    });
    prometheus.stderr?.on('data', (chunk: Buffer) => {
      prometheusLog += chunk.toString();
    });
    await until(
      async () => {
        if (prometheus?.exitCode !== null) throw new Error(`prometheus exited:\n${prometheusLog}`);
        return (await fetch(`${prometheusUrl}/-/ready`).catch(() => undefined))?.ok;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    await runMetricsScenario(server.baseUrl, receiver);
  }, 180_000);

  afterAll(async () => {
    if (prometheus && prometheus.exitCode === null) {
      const exited = new Promise((resolve) => prometheus?.once('exit', resolve));
      prometheus.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      if (prometheus.exitCode === null) prometheus.kill('SIGKILL');
    }
    server?.stop();
    await receiver?.close();
    for (const folder of [dir, certs?.dir]) if (folder) fs.rmSync(folder, { recursive: true, force: true });
  });

  it('scrapes the instance and sees the messages the scenario sent', { timeout: 90_000 }, async () => {
    const accepted = await until(
      async () => {
        const [sample] = await query('sum(simgate_messages_accepted_total{job="simgate"})');
        return sample && Number(sample.value[1]) > 0 ? sample : undefined;
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    );
    expect(Number(accepted.value[1])).toBeGreaterThanOrEqual(1);
    const [up] = await query('up{job="simgate"}');
    expect(up?.value[1]).toBe('1');
  });

  it('loads every alert rule of deploy/prometheus/alerts.yml and evaluates it healthy', {
    timeout: 60_000,
  }, async () => {
    type Rule = { name: string; type: string; health: string; lastError?: string };
    const expected = alertRules()
      .map((rule) => rule.alert)
      .sort();
    const rules = await until(
      async () => {
        const data = await api<{ groups: { rules: Rule[] }[] }>('/api/v1/rules', { type: 'alert' });
        const all = data.groups.flatMap((group) => group.rules);
        return all.length === expected.length && all.every((rule) => rule.health !== 'unknown') ? all : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    expect(rules.map((rule) => rule.name).sort()).toEqual(expected);
    for (const rule of rules)
      expect({ name: rule.name, health: rule.health, error: rule.lastError ?? '' }).toEqual({
        name: rule.name,
        health: 'ok',
        error: '',
      });
  });

  it('runs every query of the Grafana dashboard', async () => {
    for (const { panel, expr } of dashboardQueries()) {
      await expect(query(withVariables(expr)), `panel "${panel}"`).resolves.toBeInstanceOf(Array);
    }
  });
});
