import { eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { devices, type SimCard } from '@/db/schema';

export type { SimCard } from '@/db/schema';

/** A device by its id (from its own credential), if it still exists. */
export async function findDevice(executor: Executor, deviceId: string) {
  const [row] = await executor.select().from(devices).where(eq(devices.id, deviceId));
  return row;
}

/** What a device reports of itself: its push token (null for none) and, when it sends them, its SIM cards. */
export async function updateDeviceReport(
  executor: Executor,
  deviceId: string,
  report: { pushToken: string | null; simCards?: SimCard[] },
): Promise<void> {
  await executor
    .update(devices)
    .set({ pushToken: report.pushToken, ...(report.simCards ? { simCards: report.simCards } : {}) })
    .where(eq(devices.id, deviceId));
}
