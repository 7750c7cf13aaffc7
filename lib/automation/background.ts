import { startPeriodic } from '@/lib/runtime/periodic';
import { recoverPendingAutomation } from './pending';

const SWEEP_INTERVAL_MS = 10_000;

/**
 * The recovery sweep of inbound automation (lib/automation/pending.ts): the rules of a message
 * whose recording committed but whose automation never ran (the process stopped between the two)
 * run within a minute or so, and once.
 */
export async function startAutomationWork(): Promise<() => Promise<void>> {
  return startPeriodic({
    name: 'pending automation sweep',
    intervalMs: SWEEP_INTERVAL_MS,
    runAtStart: true,
    run: (db) => recoverPendingAutomation(db),
  });
}
