import { and, eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { devices, phones } from '@/db/schema';
import { validationError } from '@/lib/errors';
import { z } from '@/lib/zod';

/** The most bytes one data SMS carries (a single SMS's 140-byte user data). */
export const DATA_SMS_MAX_BYTES = 140;

/** A data SMS's bytes in base64 (standard alphabet, padded), 1 to DATA_SMS_MAX_BYTES bytes. */
export const dataSmsBytes = z
  .base64()
  .min(1)
  .refine((value) => Buffer.from(value, 'base64').length <= DATA_SMS_MAX_BYTES, {
    message: `must decode to at most ${DATA_SMS_MAX_BYTES} bytes`,
  })
  .openapi({ description: `The bytes in base64, 1 to ${DATA_SMS_MAX_BYTES} bytes.`, example: 'AQID' });

/** The port a data SMS goes to (the app's `port`, an unsigned 16-bit number). */
export const dataSmsPort = z
  .number()
  .int()
  .min(0)
  .max(65_535)
  .openapi({ description: 'Destination port, 0 to 65535.' });

/**
 * A data SMS goes out only through a phone paired with the SMSGate app (its pull hands it over as
 * `dataMessage`); the device simulator's API has no way to send one, so a send from any other
 * phone is refused with 400 before anything is charged.
 */
export async function checkDataSender(
  executor: Executor,
  accountId: string,
  phone: string,
  field = 'data',
): Promise<void> {
  const [row] = await executor
    .select({ kind: devices.kind })
    .from(phones)
    .leftJoin(devices, eq(devices.id, phones.deviceId))
    .where(and(eq(phones.accountId, accountId), eq(phones.phone, phone)));
  if (row && row.kind !== 'app') {
    throw validationError(
      field,
      'A data SMS needs a phone paired with the SMSGate app; this phone is driven through the device API (a simulator), which cannot send one.',
    );
  }
}
