import { openedDatabase } from '@/db';
import { openSessionsByKind } from '@/lib/devices/sessions';
import { globalReading } from './global-gauges';
import { metrics, recordBuildInfo, registry } from './registry';

/**
 * The scrape's answer: the per-instance gauges read now (device connections, the database pool),
 * the global ones from their cached reading (lib/metrics/global-gauges.ts), then every metric in
 * the Prometheus text format.
 */
export async function scrape(): Promise<{ body: string; contentType: string }> {
  const handle = openedDatabase();
  if (handle) recordBuildInfo(handle.driver.kind === 'pglite' ? 'pglite' : 'postgresql');
  const pool = handle?.pool?.();
  metrics.dbPool.set({ state: 'in_use' }, pool?.inUse ?? 0);
  metrics.dbPool.set({ state: 'idle' }, pool?.idle ?? 0);
  metrics.dbPool.set({ state: 'waiting' }, pool?.waiting ?? 0);
  const sessions = openSessionsByKind();
  metrics.deviceConnections.set({ kind: 'sse' }, sessions.stream);
  metrics.deviceConnections.set({ kind: 'longpoll' }, sessions.poll);
  const reading = await globalReading();
  if (reading) {
    metrics.queued.set(reading.queued);
    metrics.dispatched.set(reading.dispatched);
    metrics.accountsQueueFull.set(reading.accountsQueueFull);
    metrics.oldestQueuedAge.set(reading.oldestQueuedAgeS);
    for (const [status, count] of Object.entries(reading.phones)) metrics.phones.set({ status }, count);
    metrics.webhooksPending.set(reading.webhooksPending);
    metrics.oldestPendingWebhookAge.set(reading.oldestPendingWebhookAgeS);
  }
  return { body: await registry.metrics(), contentType: registry.contentType };
}
