import { HEARTBEAT_STATUSES, SIM_SLOTS } from '@/db/schema';
import { pageQuery } from '@/lib/pagination';
import { e164 } from '@/lib/phone-number';
import { z } from '@/lib/zod';

export { HEARTBEAT_STATUSES, type HeartbeatStatus } from '@/db/schema';

export const heartbeatBody = z
  .strictObject({
    phone: e164.openapi({ description: 'A phone of the account; with a device key, the device’s own number.' }),
    status: z.enum(HEARTBEAT_STATUSES),
    battery: z
      .number()
      .int()
      .min(0)
      .max(100)
      .nullable()
      .optional()
      .openapi({ description: 'Battery level, a whole number from 0 to 100. Left out or null keeps the last one.' }),
    sims: z.number().int().min(1).max(SIM_SLOTS.length).optional().openapi({
      description:
        'How many SIM cards the phone holds (slots 1 to n). Sends naming another `sim` answer 400; until a phone reports its SIMs, any slot is accepted. Left out keeps what was reported.',
    }),
  })
  .openapi('Heartbeat');

export const heartbeatHistoryQuery = pageQuery.extend({
  since: z.iso
    .datetime({ offset: true })
    .transform((value) => new Date(value))
    .optional()
    .openapi({ type: 'string', format: 'date-time', description: 'Only heartbeats at or after this time (RFC 3339).' }),
});

export const heartbeatEntrySchema = z
  .object({
    status: z.enum(HEARTBEAT_STATUSES),
    battery: z.number().int().min(0).max(100).nullable(),
    at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('HeartbeatEntry');

export type HeartbeatEntryWire = z.infer<typeof heartbeatEntrySchema>;
