import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POST as reportStatus } from '@/app/api/v1/device/messages/[id]/status/route';
import { POST as received } from '@/app/api/v1/device/messages/received/route';
import { POST as claim } from '@/app/api/v1/device/outbox/claim/route';
import { POST as heartbeat } from '@/app/api/v1/heartbeats/route';
import { POST as send } from '@/app/api/v1/messages/route';
import { GET as metricsRoute } from '@/app/metrics/route';
import { forgetGlobalGauges } from '@/lib/metrics/global-gauges';
import { simgateMetricNames } from '@/lib/metrics/registry';
import { startWebhookWork } from '@/lib/webhooks/background';
import { createWebhook } from '@/lib/webhooks/manage';
import { freePort } from '@/scripts/free-port';
import { createTestAccount, type TestAccount, testNumber } from '../fixtures';
import { call, fromSocket } from '../http';
import { until } from '../poll';
import { withTestDatabase } from '../setup-db';

process.env.APP_SECRET ??= 'test-app-secret-for-metrics-0123456789abcdef';

const { db } = withTestDatabase();

/** The issue's table: the names the dashboard, the alert rules and operators' dashboards rely on. */
const CONTRACT: Record<string, { type: string; labels: string[] }> = {
  simgate_http_requests_total: { type: 'counter', labels: ['surface', 'route', 'method', 'status'] },
  simgate_http_request_duration_seconds: { type: 'histogram', labels: ['surface', 'route', 'method'] },
  simgate_messages_accepted_total: { type: 'counter', labels: ['surface'] },
  simgate_message_transitions_total: { type: 'counter', labels: ['to'] },
  simgate_messages_queued: { type: 'gauge', labels: [] },
  simgate_messages_dispatched: { type: 'gauge', labels: [] },
  simgate_accounts_queue_full: { type: 'gauge', labels: [] },
  simgate_queue_full_total: { type: 'counter', labels: [] },
  simgate_oldest_queued_message_age_seconds: { type: 'gauge', labels: [] },
  simgate_message_dispatch_latency_seconds: { type: 'histogram', labels: [] },
  simgate_message_delivery_latency_seconds: { type: 'histogram', labels: [] },
  simgate_phones: { type: 'gauge', labels: ['status'] },
  simgate_device_connections: { type: 'gauge', labels: ['kind'] },
  simgate_heartbeats_total: { type: 'counter', labels: [] },
  simgate_webhook_deliveries_total: { type: 'counter', labels: ['outcome'] },
  simgate_webhook_delivery_duration_seconds: { type: 'histogram', labels: [] },
  simgate_webhook_deliveries_pending: { type: 'gauge', labels: [] },
  simgate_oldest_pending_webhook_age_seconds: { type: 'gauge', labels: [] },
  simgate_credits_moved_total: { type: 'counter', labels: ['kind'] },
  simgate_automation_actions_total: { type: 'counter', labels: ['kind', 'result'] },
  simgate_background_task_runs_total: { type: 'counter', labels: ['task', 'result'] },
  simgate_background_task_duration_seconds: { type: 'histogram', labels: ['task'] },
  simgate_db_pool_connections: { type: 'gauge', labels: ['state'] },
  simgate_build_info: { type: 'gauge', labels: ['version', 'node', 'database'] },
  // Each web process's event-loop delay (issue 50): prom-client's is averaged over the processes.
  simgate_eventloop_delay_p99_seconds: { type: 'gauge', labels: ['process'] },
  // Beyond the table: what the retention sweep removed (issue 34).
  simgate_retention_rows_removed_total: { type: 'counter', labels: ['kind'] },
  // The SMPP server (issue 47).
  simgate_smpp_binds: { type: 'gauge', labels: ['kind'] },
  simgate_smpp_pdus_total: { type: 'counter', labels: ['command', 'status'] },
  // The doors for other software (issue 47, docs/doors.md).
  simgate_mcp_calls_total: { type: 'counter', labels: ['tool', 'outcome'] },
  simgate_email_messages_total: { type: 'counter', labels: ['outcome'] },
};

/** Series a scrape may hold after the scenario: prom-client's own, and ours, bounded by their labels. */
const MAX_SERIES = 1500;

type Sample = { name: string; labels: Record<string, string>; value: number };

function samplesOf(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]!] = pair[2]!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

function typesOf(text: string): Map<string, string> {
  return new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
}

function total(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);
}

async function scrape(): Promise<string> {
  const res = await metricsRoute(
    new Request('http://localhost:3000/metrics', { headers: { host: 'localhost:3000', ...fromSocket('127.0.0.1') } }),
  );
  expect(res.status).toBe(200);
  return res.text();
}

const CONTENT = 'Meet at the usual place at 7';
let account: TestAccount;
let stopWebhooks: (() => Promise<void>) | undefined;

beforeAll(async () => {
  account = await createTestAccount(db(), { credits: 100 });
  // A receiver that is not there: every post fails (connection refused) and is retried later.
  const closed = await freePort();
  await createWebhook(db(), account.accountId, {
    url: `http://127.0.0.1:${closed}/hook`,
    events: ['message.received'],
  });
  stopWebhooks = await startWebhookWork();
});

afterAll(async () => {
  await stopWebhooks?.();
});

describe('GET /metrics after a day in the life of a phone', () => {
  let text: string;
  let samples: Sample[];
  const to = testNumber();

  beforeAll(async () => {
    const beat = await call(heartbeat, {
      path: '/api/v1/heartbeats',
      body: { phone: account.phone, status: 'online', battery: 80 },
      apiKey: account.deviceKey,
    });
    expect(beat.status).toBe(200);
    const sent = await call(send, {
      path: '/api/v1/messages',
      body: { from: account.phone, to, content: CONTENT },
      apiKey: account.apiKey,
    });
    expect(sent.status).toBe(201);
    const claimed = await call(claim, { path: '/api/v1/device/outbox/claim', body: {}, apiKey: account.deviceKey });
    expect(claimed.body.data.map((m: { id: string }) => m.id)).toEqual([sent.body.id]);
    for (const status of ['sent', 'delivered']) {
      const res = await call(reportStatus, {
        path: `/api/v1/device/messages/${sent.body.id}/status`,
        params: { id: sent.body.id },
        body: { status },
        apiKey: account.deviceKey,
      });
      expect(res.status).toBe(200);
    }
    const inbound = await call(received, {
      path: '/api/v1/device/messages/received',
      body: { from: to, content: 'Yes, see you there' },
      apiKey: account.deviceKey,
    });
    expect(inbound.status).toBe(201);
    const stop = await call(received, {
      path: '/api/v1/device/messages/received',
      body: { from: testNumber(), content: 'STOP' },
      apiKey: account.deviceKey,
    });
    expect(stop.status).toBe(201);
    // The webhook worker picks the `message.received` deliveries up and fails to post them.
    await until(async () => total(samplesOf(await scrape()), 'simgate_webhook_deliveries_total') >= 2);
    forgetGlobalGauges();
    text = await scrape();
    samples = samplesOf(text);
  });

  it('exposes every metric of the contract, with its type and labels', () => {
    const types = typesOf(text);
    for (const [name, { type, labels }] of Object.entries(CONTRACT)) {
      expect(types.get(name), name).toBe(type);
      for (const sample of samples.filter((s) => s.name === name || s.name.startsWith(`${name}_`))) {
        expect(
          Object.keys(sample.labels)
            .filter((label) => label !== 'le')
            .sort(),
          name,
        ).toEqual([...labels].sort());
      }
    }
    expect(simgateMetricNames().sort()).toEqual(Object.keys(CONTRACT).sort());
    // prom-client's default process and Node.js metrics.
    expect(types.get('process_cpu_seconds_total')).toBe('counter');
    expect(types.get('nodejs_eventloop_lag_seconds')).toBe('gauge');
  });

  it('counts what the scenario did', () => {
    expect(total(samples, 'simgate_messages_accepted_total', { surface: 'v1' })).toBeGreaterThanOrEqual(1);
    for (const state of ['queued', 'dispatched', 'sent', 'delivered', 'received']) {
      expect(total(samples, 'simgate_message_transitions_total', { to: state }), state).toBeGreaterThanOrEqual(1);
    }
    expect(total(samples, 'simgate_message_dispatch_latency_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(total(samples, 'simgate_message_delivery_latency_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(total(samples, 'simgate_heartbeats_total')).toBeGreaterThanOrEqual(1);
    expect(total(samples, 'simgate_credits_moved_total', { kind: 'message_charge' })).toBeGreaterThanOrEqual(1);
    expect(total(samples, 'simgate_automation_actions_total', { kind: 'opt_out', result: 'opted_out' })).toBe(1);
    expect(total(samples, 'simgate_webhook_deliveries_total', { outcome: 'retry' })).toBeGreaterThanOrEqual(2);
    expect(total(samples, 'simgate_webhook_delivery_duration_seconds_count')).toBeGreaterThanOrEqual(2);
    expect(
      total(samples, 'simgate_background_task_runs_total', { task: 'webhook_worker', result: 'ok' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      total(samples, 'simgate_http_requests_total', {
        surface: 'v1',
        route: '/api/v1/device/messages/[id]/status',
        method: 'POST',
        status: '2xx',
      }),
    ).toBe(2);
    expect(total(samples, 'simgate_http_request_duration_seconds_count', { route: '/api/v1/messages' })).toBe(1);
  });

  it('reads the global gauges from the database, and this instance’s own', () => {
    expect(total(samples, 'simgate_phones', { status: 'online' })).toBeGreaterThanOrEqual(1);
    expect(total(samples, 'simgate_webhook_deliveries_pending')).toBeGreaterThanOrEqual(2);
    expect(total(samples, 'simgate_messages_queued')).toBe(0);
    const database = process.env.TEST_DATABASE_URL ? 'postgresql' : 'pglite';
    const info = samples.find((s) => s.name === 'simgate_build_info');
    expect(info?.labels).toMatchObject({ database, node: process.version });
    expect(info?.value).toBe(1);
    for (const state of ['in_use', 'idle', 'waiting']) {
      expect(samples.some((s) => s.name === 'simgate_db_pool_connections' && s.labels.state === state)).toBe(true);
    }
    expect(total(samples, 'simgate_device_connections', { kind: 'sse' })).toBe(0);
  });

  it('no label holds a number, an address, an id, a key or a text, and the series stay bounded', () => {
    const values = samples.flatMap((s) => Object.values(s.labels));
    const forbidden = [
      /\+?\d{7,}/, // a phone number
      /@/, // an email address
      /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i, // an id
      /\b(sk|dk)_/, // a key
    ];
    for (const value of values) {
      for (const pattern of forbidden) expect(value, `label value ${value}`).not.toMatch(pattern);
      for (const secret of [account.phone, account.email, account.accountId, account.apiKey, account.deviceKey, to]) {
        expect(value).not.toContain(secret);
      }
      expect(value).not.toContain('usual place');
    }
    expect(text).not.toContain(CONTENT);
    expect(samples.length).toBeLessThan(MAX_SERIES);
  });
});
