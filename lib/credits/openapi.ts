import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { defineRoute, pageOf } from '@/lib/openapi/define';
import { z } from '@/lib/zod';
import {
  balanceQuery,
  balancesSchema,
  groupBalanceSchema,
  ledgerEntrySchema,
  ledgerQuery,
  transferBody,
  transferResultSchema,
} from './schemas';

const tags = ['Credits'];

export function registerCreditsRoutes(registry: OpenAPIRegistry): void {
  defineRoute(registry, {
    method: 'get',
    path: '/api/v1/credits/balance',
    summary: 'Credit balances',
    description:
      'Without `group_id`: every group’s balance and the total. With `group_id`: that group’s balance alone.',
    tags,
    auth: 'account',
    query: balanceQuery,
    response: {
      status: 200,
      description: 'Balances.',
      schema: z.union([balancesSchema, groupBalanceSchema]),
    },
    errors: ['GROUP_NOT_FOUND'],
  });
  defineRoute(registry, {
    method: 'post',
    path: '/api/v1/credits/transfer',
    summary: 'Transfer credits between groups',
    description:
      '`from_group` defaults to the default group and must differ from `to_group`. Too few credits in ' +
      'the source answers 400 `INSUFFICIENT_CREDITS` and moves nothing. The ledger records a ' +
      '`transfer_out` and a `transfer_in` row sharing `transfer_id`.',
    tags,
    auth: 'account',
    body: transferBody,
    response: { status: 200, description: 'Both groups’ balances after the transfer.', schema: transferResultSchema },
    errors: ['GROUP_NOT_FOUND', 'INSUFFICIENT_CREDITS'],
  });
  defineRoute(registry, {
    method: 'get',
    path: '/api/v1/credits/ledger',
    summary: 'Credit ledger',
    description:
      'Every credit movement (starter and operator grants, transfers, message charges, refunds, group merges), ' +
      'newest first. A group’s balance equals the sum of its rows.',
    tags,
    auth: 'account',
    query: ledgerQuery,
    response: { status: 200, description: 'A page of movements.', schema: pageOf(ledgerEntrySchema) },
    errors: ['GROUP_NOT_FOUND'],
  });
}
