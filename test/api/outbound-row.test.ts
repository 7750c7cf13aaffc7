import { randomUUID } from 'node:crypto';
import { and, eq, getTableColumns } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { messages } from '@/db/schema';
import { acceptInBatch } from '@/lib/messages/accept-batch';
import { sendBulk } from '@/lib/messages/bulk';
import { OUTBOUND_COLUMN_NAMES } from '@/lib/messages/outbound-row';
import type { MessageRow } from '@/lib/messages/present';
import { scheduleOf } from '@/lib/messages/schedule';
import { type SendInput, sendMessage } from '@/lib/messages/send';
import { countryOf } from '@/lib/phone-number';
import { startSimCheck } from '@/lib/phones/sim-check';
import { rotateCallbackSecret } from '@/lib/webhooks/callbacks';
import { citusMode } from '../database';
import { createTestAccount, type TestAccount, testNumber } from '../fixtures';
import { withTestDatabase } from '../setup-db';

/**
 * Every producer of outbound messages writes its row through lib/messages/outbound-row.ts. Sent
 * with the same options, the single send (batched and alone), the bulk and the SIM check write the
 * same columns; only what tells them apart differs.
 */

const { db } = withTestDatabase();

async function rowOf(account: TestAccount, id: string): Promise<MessageRow> {
  const [row] = await db()
    .select()
    .from(messages)
    .where(and(eq(messages.accountId, account.accountId), eq(messages.id, id)));
  if (!row) throw new Error(`message ${id} was not written`);
  return row;
}

/** The row without what differs between any two messages (its id, its times of writing). */
function comparable(row: MessageRow): Partial<MessageRow> {
  const { id: _id, createdAt: _created, updatedAt: _updated, requestId: _request, ...rest } = row;
  return rest;
}

describe('the outbound message row', () => {
  it('is written with every column of messages but those of inbound messages and of later states', () => {
    // direction and status are constants of the writer; the rest belong to inbound messages or later states.
    const notWritten = [
      'direction',
      'status',
      'attempts',
      'error',
      'held_reason',
      'automation',
      'details',
      'device_message_id',
    ];
    const inboundOrLater = [...notWritten, 'content_purged_at'];
    const all = Object.values(getTableColumns(messages)).map((column) => column.name);
    expect([...OUTBOUND_COLUMN_NAMES].sort()).toEqual(all.filter((name) => !inboundOrLater.includes(name)).sort());
  });

  it('the single send batched and alone and the bulk write the same columns for the same options', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    await rotateCallbackSecret(db(), account.accountId);
    const to = testNumber();
    const options = {
      sim: 1,
      priority: 'high' as const,
      statusCallbackUrl: 'https://hooks.example.com/status',
      sendAt: new Date(Date.now() + 3_600_000),
      ttlSeconds: 7200,
    };
    const input: SendInput = { origin: 'api' as const, from: account.phone, to, content: 'Same row', ...options };

    const alone = await db().transaction((tx) =>
      sendMessage(tx, account.accountId, { ...input, requestId: randomUUID() }),
    );
    const aloneRow = await rowOf(account, alone.id);

    const schedule = scheduleOf(options);
    const batchedId = randomUUID();
    const batched = await acceptInBatch(db(), {
      id: batchedId,
      accountId: account.accountId,
      phoneId: null,
      groupId: null,
      from: account.phone,
      to,
      country: countryOf(to) ?? null,
      content: 'Same row',
      segments: aloneRow.segments,
      encoding: aloneRow.encoding,
      kind: 'message',
      dataPort: null,
      sim: options.sim,
      fromGroup: null,
      priority: options.priority,
      callbackWebhookId: aloneRow.callbackWebhookId,
      requestId: randomUUID(),
      bulkId: null,
      encrypted: false,
      origin: null,
      ...schedule,
      createdAt: null,
    });
    // On a Citus database the batch never runs (lib/messages/accept-batch.ts): every send goes alone.
    if (citusMode()) expect(batched).toBeUndefined();
    else expect(batched?.id).toBe(batchedId);
    // Through the API's path: not in a transaction, an eligible send is taken by a batch.
    const sent = await sendMessage(db(), account.accountId, input);

    const bulk = await sendBulk(db(), account.accountId, {
      origin: 'api',
      from: account.phone,
      recipients: [to],
      content: 'Same row',
      ...options,
    });
    const bulkRow = await rowOf(account, bulk.message_ids[0] as string);

    const batchedRows = citusMode() ? [] : [await rowOf(account, batchedId)];
    for (const row of [...batchedRows, await rowOf(account, sent.id)]) {
      expect(comparable(row)).toEqual(comparable(aloneRow));
    }
    expect(bulkRow.bulkId).toBe(bulk.id);
    expect(comparable({ ...bulkRow, bulkId: null })).toEqual(comparable(aloneRow));
    expect(aloneRow).toMatchObject({ sim: 1, priority: 'high', sendAt: options.sendAt, kind: 'message' });
    expect(aloneRow.callbackWebhookId).not.toBeNull();
  });

  it('the SIM check writes the row of a free loopback message', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    await db().transaction((tx) =>
      startSimCheck(tx, { id: account.phoneId, accountId: account.accountId, phone: account.phone }, account.deviceId),
    );
    const [row] = await db()
      .select()
      .from(messages)
      .where(and(eq(messages.accountId, account.accountId), eq(messages.kind, 'sim_check')));
    expect(row).toMatchObject({
      phoneId: account.phoneId,
      groupId: null,
      direction: 'outbound',
      status: 'queued',
      from: account.phone,
      to: account.phone,
      priority: 'normal',
      encrypted: false,
      attempts: 1,
    });
    expect(row?.expiresAt?.getTime()).toBeGreaterThan(row?.sendAt.getTime() ?? Number.POSITIVE_INFINITY);
  });
});
