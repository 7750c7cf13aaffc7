import { config } from '@/lib/config';
import { startPeriodic } from '@/lib/runtime/periodic';
import { evaluateAlerts } from './evaluate';

/**
 * Account alerts (ALERT_EVALUATION_INTERVAL_S): once at start, then every interval. Any number of
 * instances may run it at once (lib/alerts/evaluate.ts).
 */
export async function startAlertWork(): Promise<() => Promise<void>> {
  return startPeriodic({
    name: 'alert evaluation',
    intervalMs: config.alertEvaluationIntervalSeconds * 1000,
    run: (db) => evaluateAlerts(db),
    runAtStart: true,
  });
}
