import cluster from 'node:cluster';
import { openedDatabase } from '@/db';
import { openSessionsByKind } from '@/lib/devices/sessions';
import { globalReading } from './global-gauges';
import { metrics, recordBuildInfo, registry } from './registry';

// The messages between a web process and the primary of `npm start`'s processes (scripts/serve.mjs).
const METRICS_ASK = 'simgate:metrics';
const METRICS_ANSWER = 'simgate:metrics-answer';
const METRICS_JSON_ASK = 'simgate:metrics-json';
const METRICS_JSON_ANSWER = 'simgate:metrics-json-answer';
/** Past this, a scrape answers with this process's metrics alone rather than wait for the others. */
const CLUSTER_SCRAPE_MS = 5_000;

type Message = { type?: string; id?: number; body?: string; contentType?: string };

/** The per-instance gauges read now: device connections, the database pool. */
function readInstanceGauges(): void {
  const handle = openedDatabase();
  if (handle) recordBuildInfo(handle.driver.kind === 'pglite' ? 'pglite' : 'postgresql');
  const pool = handle?.pool?.();
  metrics.dbPool.set({ state: 'in_use' }, pool?.inUse ?? 0);
  metrics.dbPool.set({ state: 'idle' }, pool?.idle ?? 0);
  metrics.dbPool.set({ state: 'waiting' }, pool?.waiting ?? 0);
  const sessions = openSessionsByKind();
  metrics.deviceConnections.set({ kind: 'sse' }, sessions.stream);
  metrics.deviceConnections.set({ kind: 'longpoll' }, sessions.poll);
}

/** The global gauges, from their cached reading (lib/metrics/global-gauges.ts). */
async function readGlobalGauges(): Promise<void> {
  const reading = await globalReading();
  if (!reading) return;
  metrics.queued.set(reading.queued);
  metrics.dispatched.set(reading.dispatched);
  metrics.accountsQueueFull.set(reading.accountsQueueFull);
  metrics.oldestQueuedAge.set(reading.oldestQueuedAgeS);
  for (const [status, count] of Object.entries(reading.phones)) metrics.phones.set({ status }, count);
  metrics.webhooksPending.set(reading.webhooksPending);
  metrics.oldestPendingWebhookAge.set(reading.oldestPendingWebhookAgeS);
}

/** Whether this process is one of several web processes of `npm start` (WEB_CONCURRENCY above 1). */
function inCluster(): boolean {
  return cluster.isWorker && typeof process.send === 'function';
}

const clusterGlobal = globalThis as typeof globalThis & { __simgateMetricsListener?: boolean };
let asks = 0;

/**
 * In one of several web processes, answers the primary's requests for this process's metrics, which
 * any process's scrape makes: called at start (lib/server/start.ts), before this process serves a
 * scrape itself. Once per process, whatever bundle calls it.
 */
export function answerClusterScrapes(): void {
  if (!inCluster() || clusterGlobal.__simgateMetricsListener) return;
  clusterGlobal.__simgateMetricsListener = true;
  process.on('message', (message: Message) => {
    if (message?.type !== METRICS_JSON_ASK) return;
    readInstanceGauges();
    void registry
      .getMetricsAsJSON()
      .then((json) => process.send?.({ type: METRICS_JSON_ANSWER, id: message.id, metrics: json }));
  });
}

/** Every web process's metrics, summed by the primary; this process's alone when it does not answer. */
function clusterScrape(): Promise<{ body: string; contentType: string } | undefined> {
  const id = ++asks;
  return new Promise((resolve) => {
    const timer = setTimeout(() => done(undefined), CLUSTER_SCRAPE_MS);
    const onMessage = (message: Message) => {
      if (message?.type === METRICS_ANSWER && message.id === id && typeof message.body === 'string') {
        done({ body: message.body, contentType: message.contentType ?? registry.contentType });
      }
    };
    const done = (answer: { body: string; contentType: string } | undefined) => {
      clearTimeout(timer);
      process.off('message', onMessage);
      resolve(answer);
    };
    process.on('message', onMessage);
    process.send?.({ type: METRICS_ASK, id });
  });
}

/**
 * The scrape's answer: the per-instance gauges read now (device connections, the database pool),
 * the global ones from their cached reading, then every metric in the Prometheus text format. In one
 * of several web processes, the metrics of all of them, summed (the global gauges: this process's
 * reading, which the primary puts first).
 */
export async function scrape(): Promise<{ body: string; contentType: string }> {
  readInstanceGauges();
  await readGlobalGauges();
  if (inCluster()) {
    answerClusterScrapes();
    const summed = await clusterScrape();
    if (summed) return summed;
  }
  return { body: await registry.metrics(), contentType: registry.contentType };
}
