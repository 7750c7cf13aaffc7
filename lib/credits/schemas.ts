import { LEDGER_KINDS } from '@/db/schema';
import { groupId, groupIdInBody } from '@/lib/ids/groups';
import { pageQuery } from '@/lib/pagination';
import { queryTimestamp } from '@/lib/query-params';
import { z } from '@/lib/zod';

export const MAX_TRANSFER_AMOUNT = 1_000_000_000;
/** A balance is a 32-bit integer column. */
export const MAX_GROUP_BALANCE = 2_147_483_647;

export const creditAmount = z
  .number()
  .int()
  .positive()
  .max(MAX_TRANSFER_AMOUNT)
  .openapi({ example: 100, description: 'A positive whole number of credits, at most 1,000,000,000.' });

export const balanceQuery = z.object({
  group_id: groupId.optional().openapi({ description: 'Answer only this group’s balance.' }),
});

export const groupBalanceSchema = z
  .object({ group_id: z.number().int(), name: z.string(), balance: z.number().int() })
  .openapi('GroupBalance');

export const balancesSchema = z
  .object({ data: z.array(groupBalanceSchema), total: z.number().int() })
  .openapi('Balances', { description: 'Every group’s balance and their sum.' });

export const transferBody = z
  .strictObject({
    from_group: groupIdInBody.optional().openapi({ description: 'Source group; the default group when absent.' }),
    to_group: groupIdInBody.openapi({ description: 'Destination group.' }),
    amount: creditAmount,
  })
  .openapi('CreditTransfer');

const groupAfter = z.object({ group_id: z.number().int(), balance: z.number().int() });

export const transferResultSchema = z
  .object({
    transfer_id: z.uuid().openapi({ description: 'Shared by the two ledger rows of the transfer.' }),
    from_group: groupAfter,
    to_group: groupAfter,
    amount: z.number().int(),
  })
  .openapi('CreditTransferResult');

export const ledgerQuery = pageQuery.extend({
  group_id: groupId.optional().openapi({ description: 'Only movements of this group (also a deleted one).' }),
  kind: z.enum(LEDGER_KINDS).optional().openapi({ description: 'Only movements of this kind.' }),
  created_after: queryTimestamp.optional().openapi({ description: 'Only movements at or after this time.' }),
  created_before: queryTimestamp.optional().openapi({ description: 'Only movements before this time.' }),
});

export const MAX_HISTORY_DAYS = 90;

export const balanceHistoryQuery = z.object({
  days: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_HISTORY_DAYS)
    .default(30)
    .openapi({ description: `How many UTC days, ending today: 1 to ${MAX_HISTORY_DAYS} (default 30).` }),
  group_id: groupId
    .optional()
    .openapi({ description: 'Only this group’s balance (also a deleted one); the account’s total when absent.' }),
});

export const balanceHistorySchema = z
  .object({
    days: z
      .array(
        z.object({
          date: z.string().openapi({ example: '2026-11-24', description: 'A UTC day.' }),
          balance: z.number().int().openapi({ description: 'The balance at the end of that day (now, for today).' }),
        }),
      )
      .openapi({ description: 'Oldest first, every day present.' }),
  })
  .openapi('BalanceHistory');

export const ledgerEntrySchema = z
  .object({
    id: z.number().int(),
    group_id: z.number().int(),
    kind: z.enum(LEDGER_KINDS),
    amount: z.number().int().openapi({ description: 'Positive for credits in, negative for credits out.' }),
    balance_after: z.number().int(),
    message_id: z.uuid().nullable(),
    transfer_id: z.uuid().nullable(),
    note: z.string().nullable(),
    created_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('LedgerEntry');

export type GroupBalanceWire = z.infer<typeof groupBalanceSchema>;
export type BalancesWire = z.infer<typeof balancesSchema>;
export type TransferResultWire = z.infer<typeof transferResultSchema>;
export type LedgerEntryWire = z.infer<typeof ledgerEntrySchema>;
export type BalanceHistoryWire = z.infer<typeof balanceHistorySchema>;
