import { LEDGER_KINDS } from '@/db/schema';
import { groupId, groupIdInBody } from '@/lib/groups/ids';
import { pageQuery } from '@/lib/pagination';
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
});

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
