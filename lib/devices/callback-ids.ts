import { and, eq, lt, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { appCallbackIds } from '@/db/schema';

/**
 * Claims the id of a device's callback call, so that each call is processed once: true when the id
 * is new, false when the device's call with this id was seen within `retentionSeconds`. Ids older
 * than that are forgotten on the way. Run it in the transaction that processes the call, so that a
 * call that fails leaves no id and its retry runs.
 */
export async function claimCallbackId(
  tx: Executor,
  deviceId: string,
  callbackId: string,
  retentionSeconds: number,
): Promise<boolean> {
  const [fresh] = await tx
    .insert(appCallbackIds)
    .values({ deviceId, callbackId })
    .onConflictDoNothing()
    .returning({ id: appCallbackIds.callbackId });
  if (!fresh) return false;
  await tx
    .delete(appCallbackIds)
    .where(
      and(
        eq(appCallbackIds.deviceId, deviceId),
        lt(appCallbackIds.createdAt, sql`now() - make_interval(secs => ${retentionSeconds})`),
      ),
    );
  return true;
}
