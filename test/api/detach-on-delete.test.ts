import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { POST as sendRoute } from '@/app/api/v1/messages/route';
import { DELETE as deletePhoneRoute } from '@/app/api/v1/phones/[id]/route';
import { POST as rotate } from '@/app/api/v1/webhooks/callback-secret/route';
import { bulkMessages, messages, smsgateMessages, webhooks } from '@/db/schema';
import { deleteWebhook } from '@/lib/webhooks/manage';
import { addTestPhone, createTestAccount, type TestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

process.env.APP_SECRET ??= 'test-app-secret-for-webhooks-0123456789abcdef';

const { db } = withTestDatabase();

/**
 * `messages.bulk_id`, `messages.callback_webhook_id` and `smsgate_messages.phone_id` have no foreign
 * key (Citus refuses `ON DELETE SET NULL (col)` on a key with `account_id`): the delete paths null them.
 */

async function sendFrom(account: TestAccount, body: Record<string, unknown> = {}): Promise<string> {
  const res = await call(sendRoute, {
    body: { from: account.phone, to: testNumber(), content: 'hi', ...body },
    apiKey: account.apiKey,
  });
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}

async function messageRow(account: TestAccount, id: string) {
  const [row] = await db()
    .select({ bulkId: messages.bulkId, callbackWebhookId: messages.callbackWebhookId })
    .from(messages)
    .where(and(eq(messages.accountId, account.accountId), eq(messages.id, id)));
  return row;
}

describe('what names a deleted row without a foreign key', () => {
  it("deleting a phone nulls its integrator sends' phone and other messages' link to its bulks", async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const other = await addTestPhone(db(), account);
    const [bulk] = await db()
      .insert(bulkMessages)
      .values({ accountId: account.accountId, phoneId: other.phoneId, content: 'x', recipientCount: 1 })
      .returning({ id: bulkMessages.id });
    const kept = await sendFrom(account);
    await db()
      .update(messages)
      .set({ bulkId: bulk!.id })
      .where(and(eq(messages.accountId, account.accountId), eq(messages.id, kept)));
    const [integrator] = await db()
      .insert(smsgateMessages)
      .values({ accountId: account.accountId, extId: 'ext-1', phoneId: other.phoneId, recipients: [] })
      .returning({ id: smsgateMessages.id });

    const res = await call(deletePhoneRoute, {
      method: 'DELETE',
      params: { id: other.phoneId },
      apiKey: account.apiKey,
    });
    expect(res.status, res.text).toBe(204);

    expect(await messageRow(account, kept)).toEqual({ bulkId: null, callbackWebhookId: null });
    const [row] = await db()
      .select({ phoneId: smsgateMessages.phoneId })
      .from(smsgateMessages)
      .where(and(eq(smsgateMessages.accountId, account.accountId), eq(smsgateMessages.id, integrator!.id)));
    expect(row).toEqual({ phoneId: null });
    const bulks = await db().select().from(bulkMessages).where(eq(bulkMessages.id, bulk!.id));
    expect(bulks).toEqual([]);
  });

  it("deleting a webhook nulls the messages' status-callback link to it", async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const secret = await call(rotate, { method: 'POST', apiKey: account.apiKey });
    expect(secret.status, secret.text).toBe(201);
    const sent = await sendFrom(account, { status_callback_url: 'https://example.com/status' });
    const before = await messageRow(account, sent);
    expect(before?.callbackWebhookId).toEqual(expect.any(String));

    await deleteWebhook(db(), account.accountId, before!.callbackWebhookId!);

    expect(await messageRow(account, sent)).toEqual({ bulkId: null, callbackWebhookId: null });
    const left = await db().select().from(webhooks).where(eq(webhooks.id, before!.callbackWebhookId!));
    expect(left).toEqual([]);
  });
});
