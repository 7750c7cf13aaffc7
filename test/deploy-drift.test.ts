import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { simgateMetricNames } from '@/lib/metrics/registry';
import { createTestCertificates, type Receiver, startReceiver, type TestCertificates } from './fixtures/tls/receiver';
import { METRICS_TOKEN, runMetricsScenario, scrape } from './metrics-scenario';
import { until } from './poll';
import {
  alertRules,
  dashboardQueries,
  headingAnchors,
  metricNames,
  parseExposition,
  type Scrape,
  selectors,
} from './promql';
import { built, type Running, startServer } from './start-server';

/**
 * deploy/ cannot drift from the code: every metric the alert rules and the Grafana dashboard read
 * is one `npm start`'s /metrics exposes after a scenario that sends, delivers, receives and fails a
 * webhook, with the labels their matchers use; the dashboard shows every metric lib/metrics
 * defines; every rule carries its annotations, a runbook entry in docs/operating.md, and a promtool
 * unit test that fires it and one that does not.
 */

const root = path.resolve(import.meta.dirname, '..');

/** Series Simgate does not expose: Prometheus's own `up`, the blackbox exporter's probe. */
const EXTERNAL = new Set(['up', 'probe_success']);

/** Labels Prometheus adds to every scraped series. */
const TARGET_LABELS = new Set(['job', 'instance']);

const expressions = [
  ...alertRules().map((rule) => ({ where: `alert ${rule.alert}`, expr: rule.expr })),
  ...dashboardQueries().map((query) => ({ where: `dashboard panel "${query.panel}"`, expr: query.expr })),
];

describe('reading metric names from PromQL', () => {
  it('finds the metrics, not the functions, keywords, labels, ranges or strings', () => {
    const expr =
      'histogram_quantile(0.99, sum by (le, surface) (rate(a_seconds_bucket{route!~".*/claim|x_total", status="5xx"}[$__rate_interval]))) / on (job) group_left(version) max without (instance) (b_info offset 5m) > 1e3 and bool c:recorded';
    expect(selectors(expr)).toEqual([
      { metric: 'a_seconds_bucket', labels: ['route', 'status'] },
      { metric: 'b_info', labels: [] },
      { metric: 'c:recorded', labels: [] },
    ]);
    expect(metricNames('sum(rate(x_total[5m])) / sum(rate(x_total[5m]))')).toEqual(['x_total']);
  });
});

describe('deploy/grafana/simgate.json', () => {
  it('shows every metric Simgate defines', () => {
    const read = new Set(dashboardQueries().flatMap(({ expr }) => metricNames(expr)));
    const shown = (name: string) => ['', '_bucket', '_sum', '_count'].some((suffix) => read.has(`${name}${suffix}`));
    expect(simgateMetricNames().filter((name) => !shown(name))).toEqual([]);
  });
});

describe('deploy/prometheus/alerts.yml', () => {
  const rules = alertRules();
  const runbook = headingAnchors(fs.readFileSync(path.join(root, 'docs', 'operating.md'), 'utf8'));
  const unitTests = parse(fs.readFileSync(path.join(root, 'deploy', 'prometheus', 'alerts.test.yml'), 'utf8')) as {
    tests: { alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[] }[];
  };
  const cases = unitTests.tests.flatMap((test) => test.alert_rule_test ?? []);

  it.each(rules.map((rule) => [rule.alert, rule] as const))(
    '%s has a severity, a summary, a description and a runbook entry',
    (_name, rule) => {
      expect(rule.labels?.severity).toMatch(/^(critical|warning)$/);
      expect(rule.annotations?.summary).toBeTruthy();
      expect(rule.annotations?.description).toBeTruthy();
      const [file, anchor] = (rule.annotations?.runbook_url ?? '').split('#');
      expect(file).toBe('docs/operating.md');
      expect(runbook.has(anchor ?? ''), `docs/operating.md has no heading for #${anchor}`).toBe(true);
    },
  );

  it.each(rules.map((rule) => [rule.alert]))('%s has a promtool test that fires it and one that does not', (name) => {
    const own = cases.filter((test) => test.alertname === name);
    expect(
      own.some((test) => (test.exp_alerts ?? []).length > 0),
      'no case fires it',
    ).toBe(true);
    expect(
      own.some((test) => (test.exp_alerts ?? []).length === 0),
      'no case leaves it silent',
    ).toBe(true);
  });
});

describe.runIf(built)('the metrics deploy/ reads are the ones npm start exposes', () => {
  let certs: TestCertificates;
  let receiver: Receiver;
  let server: Running;
  let exposed: Scrape;

  beforeAll(async () => {
    certs = createTestCertificates();
    receiver = await startReceiver(certs);
    server = await startServer({ NODE_EXTRA_CA_CERTS: certs.caFile, METRICS_TOKEN }, false);
    await runMetricsScenario(server.baseUrl, receiver);
    // Global gauges and background task passes come on their own schedule: wait for them, bounded.
    const wanted = new Set(expressions.flatMap(({ expr }) => metricNames(expr)).filter((name) => !EXTERNAL.has(name)));
    // What is still missing then is named by the tests below.
    await until(
      async () => {
        exposed = parseExposition(await scrape(server.baseUrl));
        return [...wanted].every((name) => exposed.samples.has(name));
      },
      { timeoutMs: 60_000, intervalMs: 500 },
    ).catch(() => undefined);
  }, 180_000);

  afterAll(async () => {
    server?.stop();
    await receiver?.close();
    if (certs) fs.rmSync(certs.dir, { recursive: true, force: true });
  });

  it.each(expressions.map((e) => [e.where, e.expr] as const))('%s reads exposed metrics and labels', (_where, expr) => {
    const missing: string[] = [];
    for (const { metric, labels } of selectors(expr)) {
      if (EXTERNAL.has(metric)) continue;
      const seen = exposed.samples.get(metric);
      if (!seen) missing.push(metric);
      for (const label of labels) {
        if (seen && !TARGET_LABELS.has(label) && !seen.has(label)) missing.push(`${metric} label ${label}`);
      }
    }
    expect([...new Set(missing)], 'not exposed by /metrics').toEqual([]);
  });
});
