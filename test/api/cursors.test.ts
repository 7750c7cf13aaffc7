import { beforeAll, describe, expect, it } from 'vitest';
import { GET as listApiKeys } from '@/app/api/v1/auth/api-keys/route';
import { GET as creditLedger } from '@/app/api/v1/credits/ledger/route';
import { GET as listMessages } from '@/app/api/v1/messages/route';
import { GET as listPhoneGroups } from '@/app/api/v1/phone-groups/route';
import { GET as phoneHeartbeats } from '@/app/api/v1/phones/[id]/heartbeats/route';
import { GET as listPhones } from '@/app/api/v1/phones/route';
import { GET as webhookDeliveries } from '@/app/api/v1/webhooks/[id]/deliveries/route';
import { GET as listWebhooks } from '@/app/api/v1/webhooks/route';
import { webhooks } from '@/db/schema';
import type { RouteHandler } from '@/lib/http/route';
import { encodeCursor } from '@/lib/pagination';
import { createTestAccount, type TestAccount } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

let account: TestAccount;
let webhookId: string;
beforeAll(async () => {
  account = await createTestAccount(db());
  const [webhook] = await db()
    .insert(webhooks)
    .values({ accountId: account.accountId, url: 'https://hooks.example.test/', events: [], secretEncrypted: 'unused' })
    .returning({ id: webhooks.id });
  webhookId = webhook!.id;
});

const UUID = '00000000-0000-4000-8000-000000000000';

/** Every list, with an id of the form its cursor holds, so only the date can be wrong. */
const LISTS: {
  name: string;
  handler: RouteHandler;
  path: () => string;
  id: string;
  params?: () => Record<string, string>;
}[] = [
  { name: 'api keys', handler: listApiKeys, path: () => '/api/v1/auth/api-keys', id: UUID },
  { name: 'phone groups', handler: listPhoneGroups, path: () => '/api/v1/phone-groups', id: '1' },
  { name: 'phones', handler: listPhones, path: () => '/api/v1/phones', id: UUID },
  { name: 'messages', handler: listMessages, path: () => '/api/v1/messages', id: UUID },
  { name: 'webhooks', handler: listWebhooks, path: () => '/api/v1/webhooks', id: UUID },
  { name: 'credit ledger', handler: creditLedger, path: () => '/api/v1/credits/ledger', id: '1' },
  {
    name: 'heartbeats',
    handler: phoneHeartbeats,
    path: () => `/api/v1/phones/${account.phoneId}/heartbeats`,
    params: () => ({ id: account.phoneId }),
    id: '1',
  },
  {
    name: 'webhook deliveries',
    handler: webhookDeliveries,
    path: () => `/api/v1/webhooks/${webhookId}/deliveries`,
    params: () => ({ id: webhookId }),
    id: UUID,
  },
];

// JavaScript reads all of these (or gives up on them), PostgreSQL's timestamptz stores none.
const OUT_OF_RANGE_DATES = [
  '+275760-09-13T00:00:00.000Z',
  '+275760-09-14T00:00:00.000Z',
  '+300000-01-01T00:00:00.000Z',
  '-271821-04-20T00:00:00.000Z',
  '-300000-01-01T00:00:00.000Z',
  '-004714-01-01T00:00:00.000Z',
  '+294277-01-01T00:00:00.000Z',
];

function craftedCursor(date: string, id: string): string {
  return Buffer.from(JSON.stringify([date, id])).toString('base64url');
}

describe('a crafted cursor with a date out of range', () => {
  it.each(LISTS)('answers 400 VALIDATION_ERROR on cursor from the $name list', async (list) => {
    for (const date of OUT_OF_RANGE_DATES) {
      const cursor = craftedCursor(date, list.id);
      const res = await call(list.handler, {
        path: `${list.path()}?cursor=${cursor}`,
        apiKey: account.apiKey,
        params: list.params?.(),
      });
      expect({ date, status: res.status, code: res.body.code }).toEqual({
        date,
        status: 400,
        code: 'VALIDATION_ERROR',
      });
      expect(res.body.errors[0].path).toBe('cursor');
    }
  });

  it.each(LISTS)('still pages the $name list from the first and last representable years', async (list) => {
    for (const createdAt of [new Date('0001-01-01T00:00:00.000Z'), new Date('9999-12-31T23:59:59.999Z')]) {
      const res = await call(list.handler, {
        path: `${list.path()}?cursor=${encodeCursor({ createdAt, id: list.id })}`,
        apiKey: account.apiKey,
        params: list.params?.(),
      });
      expect({ createdAt, status: res.status }).toEqual({ createdAt, status: 200 });
    }
  });
});

describe('one keyset pagination for every list', () => {
  it.each(LISTS)('answers 400 naming the cursor when its id is not of the $name list’s id type', async (list) => {
    const wrongId = list.id === UUID ? '1' : UUID;
    const res = await call(list.handler, {
      path: `${list.path()}?cursor=${encodeCursor({ createdAt: new Date(), id: wrongId })}`,
      apiKey: account.apiKey,
      params: list.params?.(),
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [{ path: 'cursor', message: 'invalid cursor' }],
    });
  });
});
