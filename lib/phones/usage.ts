import { and, eq, inArray } from 'drizzle-orm';
import type { Executor } from '@/db';
import { phoneRecipientCounts } from '@/db/schema';
import { dispatchCounts } from '@/lib/messages/pacing';
import { monthKey, monthlyResetAt } from '@/lib/messages/quota';
import { NEAR_CAP_SHARE } from './limits';
import { type PhoneView, presentPhone } from './present';
import type { PhoneUsageWire, PhoneWithUsageWire } from './schemas';

/** Whether `used` has reached NEAR_CAP_SHARE of `cap` (never without a cap). */
export function nearCap(used: number, cap: number | null): boolean {
  return cap !== null && used >= cap * NEAR_CAP_SHARE;
}

/**
 * The phones with what counts against their caps now: their hand-outs in the last minute, the last
 * hour and the UTC day (as pacing counts them), and their distinct recipients this month. Two
 * statements for the whole page.
 */
export async function presentWithUsage(
  executor: Executor,
  accountId: string,
  views: PhoneView[],
  now: Date = new Date(),
): Promise<PhoneWithUsageWire[]> {
  const ids = views.map((view) => view.id);
  const [counts, monthly] = await Promise.all([
    dispatchCounts(executor, accountId, ids, now),
    ids.length === 0
      ? []
      : executor
          .select({ phoneId: phoneRecipientCounts.phoneId, recipients: phoneRecipientCounts.recipients })
          .from(phoneRecipientCounts)
          .where(
            and(
              eq(phoneRecipientCounts.accountId, accountId),
              inArray(phoneRecipientCounts.phoneId, ids),
              eq(phoneRecipientCounts.month, monthKey(now)),
            ),
          ),
  ]);
  const recipients = new Map(monthly.map((row) => [row.phoneId, row.recipients]));
  const resetsAt = monthlyResetAt(now).toISOString();
  return views.map((view) => {
    const dispatched = counts.get(view.id);
    const usage: PhoneUsageWire = {
      this_minute: dispatched?.lastMinute ?? 0,
      this_hour: dispatched?.lastHour ?? 0,
      today: dispatched?.today ?? 0,
      recipients_this_month: recipients.get(view.id) ?? 0,
      month_resets_at: resetsAt,
    };
    return {
      ...presentPhone(view),
      usage,
      near_cap:
        nearCap(usage.this_hour, view.hourlyCap) ||
        nearCap(usage.today, view.dailyCap) ||
        nearCap(usage.recipients_this_month, view.monthlyRecipientCap),
    };
  });
}
