import { z } from '@/lib/zod';

const totals = z.object({
  sent: z.number().int().openapi({ description: 'Outbound messages that reached a carrier (sent or delivered).' }),
  delivered: z.number().int(),
  failed: z.number().int().openapi({ description: 'Outbound messages that failed, expired or were cancelled.' }),
  received: z.number().int(),
  credits_used: z.number().int().openapi({ description: 'Message charges less refunds.' }),
});

export const messageStatsSchema = z
  .object({
    today: totals.openapi({ description: 'Since 00:00 UTC.' }),
    queue: z
      .object({
        queued: z.number().int().openapi({
          description: 'Outbound messages queued now (counted up to the limit, and one more when past it).',
        }),
        max_queued_messages: z.number().int().openapi({
          description: 'The account’s limit (Settings → Sending): a send past it answers 429 QUEUE_FULL.',
        }),
      })
      .openapi({ description: 'The account’s queue against its limit (back-pressure).' }),
    last_30_days: totals,
    daily: z
      .array(
        z.object({
          date: z.string().openapi({ example: '2026-11-24', description: 'A UTC day.' }),
          queued: z
            .number()
            .int()
            .openapi({ description: 'Not yet handed to a phone, or on a phone (queued, dispatched).' }),
          sent: z.number().int(),
          delivered: z.number().int(),
          failed: z.number().int().openapi({ description: 'Failed, expired or cancelled.' }),
          received: z.number().int(),
        }),
      )
      .openapi({
        description: 'The last 30 UTC days, oldest first, every day present: messages by the state they are in now.',
      }),
  })
  .openapi('MessageStats');

export type MessageStats = z.infer<typeof messageStatsSchema>;
