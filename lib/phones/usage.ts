import { and, eq, inArray } from 'drizzle-orm';
import type { Executor } from '@/db';
import { devices, phones, simRecipientCounts } from '@/db/schema';
import { type DispatchCounts, dispatchCounts, dispatchCountsBySim } from '@/lib/messages/pacing';
import { countedSims, monthKey, monthlyResetAt } from '@/lib/messages/quota';
import { NEAR_CAP_SHARE } from './limits';
import { type PhoneView, presentPhone } from './present';
import type { PhoneUsageWire, PhoneWithUsageWire } from './schemas';

/** Whether `used` has reached NEAR_CAP_SHARE of `cap` (never without a cap). */
export function nearCap(used: number, cap: number | null): boolean {
  return cap !== null && used >= cap * NEAR_CAP_SHARE;
}

type CapUsage = { this_hour: number; today: number; recipients_this_month: number };

/** Whether usage has reached NEAR_CAP_SHARE of one of the phone's caps. */
function nearAnyCap(usage: CapUsage, view: PhoneView): boolean {
  return (
    nearCap(usage.this_hour, view.hourlyCap) ||
    nearCap(usage.today, view.dailyCap) ||
    nearCap(usage.recipients_this_month, view.monthlyRecipientCap)
  );
}

/**
 * The phones with what counts against their caps now: their hand-outs in the last minute, the last
 * hour and the UTC day (as pacing counts them), and their distinct recipients this month; for a
 * phone with several SIMs (lib/messages/quota.ts), each SIM's too. A few statements for the whole page.
 */
export async function presentWithUsage(
  executor: Executor,
  accountId: string,
  views: PhoneView[],
  now: Date = new Date(),
): Promise<PhoneWithUsageWire[]> {
  const ids = views.map((view) => view.id);
  const [counts, slotsOf, monthly] = await Promise.all([
    dispatchCounts(executor, accountId, ids, now),
    countedSimsOf(executor, accountId, ids),
    recipientCounts(executor, accountId, ids, now),
  ]);
  const several = ids.filter((id) => slotsOf.has(id));
  const bySim = several.length > 0 ? await dispatchCountsBySim(executor, accountId, several, now) : new Map();
  const resetsAt = monthlyResetAt(now).toISOString();
  return views.map((view) => {
    const dispatched = counts.get(view.id);
    const slots = slotsOf.get(view.id);
    const recipients = monthly.get(view.id) ?? new Map<number, number>();
    const sims = slots?.map((sim) => {
      const simCounts: DispatchCounts | undefined = bySim.get(view.id)?.get(sim);
      return {
        sim,
        this_hour: simCounts?.lastHour ?? 0,
        today: simCounts?.today ?? 0,
        recipients_this_month: recipients.get(sim) ?? 0,
      };
    });
    const usage: PhoneUsageWire = {
      this_minute: dispatched?.lastMinute ?? 0,
      this_hour: dispatched?.lastHour ?? 0,
      today: dispatched?.today ?? 0,
      recipients_this_month: sims
        ? sims.reduce((sum, sim) => sum + sim.recipients_this_month, 0)
        : (recipients.get(1) ?? 0),
      month_resets_at: resetsAt,
      ...(sims ? { sims } : {}),
    };
    return {
      ...presentPhone(view),
      usage,
      near_cap: sims ? sims.some((sim) => nearAnyCap(sim, view)) : nearAnyCap(usage, view),
    };
  });
}

/** The phones of `ids` whose device reports several SIMs, with their slots (quota.ts `countedSims`). */
async function countedSimsOf(executor: Executor, accountId: string, ids: string[]): Promise<Map<string, number[]>> {
  if (ids.length === 0) return new Map();
  const rows = await executor
    .select({ id: phones.id, simCards: devices.simCards })
    .from(phones)
    .innerJoin(devices, eq(devices.id, phones.deviceId))
    .where(and(eq(phones.accountId, accountId), inArray(phones.id, ids)));
  return new Map(
    rows.flatMap((row) => {
      const slots = countedSims(row.simCards);
      return slots ? [[row.id, slots] as const] : [];
    }),
  );
}

/** Each phone's distinct recipients this month, per SIM slot. */
async function recipientCounts(
  executor: Executor,
  accountId: string,
  ids: string[],
  now: Date,
): Promise<Map<string, Map<number, number>>> {
  if (ids.length === 0) return new Map();
  const rows = await executor
    .select({
      phoneId: simRecipientCounts.phoneId,
      sim: simRecipientCounts.sim,
      recipients: simRecipientCounts.recipients,
    })
    .from(simRecipientCounts)
    .where(
      and(
        eq(simRecipientCounts.accountId, accountId),
        inArray(simRecipientCounts.phoneId, ids),
        eq(simRecipientCounts.month, monthKey(now)),
      ),
    );
  const counts = new Map<string, Map<number, number>>();
  for (const row of rows) {
    const perSim = counts.get(row.phoneId) ?? new Map<number, number>();
    perSim.set(row.sim, row.recipients);
    counts.set(row.phoneId, perSim);
  }
  return counts;
}
