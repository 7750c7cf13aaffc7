import { and, eq, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { messages } from '@/db/schema';
import { balanceOf, createTestAccount, testNumber } from '../fixtures';
import { withTestDatabase } from '../setup-db';

/**
 * The driver failing to read a send statement's answer, as postgres-js did on old instances while
 * a migration changed `messages` ("Cannot read properties of undefined (reading 'length')", "The
 * value of "offset" is out of range"): `after`, the statement ran and committed first; `before`,
 * it never ran. Both the batched and the lone statement go through `queryRows`.
 */
const fault = vi.hoisted(() => ({ when: undefined as 'before' | 'after' | undefined }));

vi.mock('@/db', async (importOriginal) => {
  const actual = await importOriginal<typeof import('@/db')>();
  const dialect = new PgDialect();
  const isSend = (query: SQL) => dialect.sqlToQuery(query).sql.includes('insert into messages');
  return {
    ...actual,
    queryRows: async (executor: Parameters<typeof actual.queryRows>[0], query: SQL) => {
      const when = isSend(query) ? fault.when : undefined;
      if (when === 'before') throw new TypeError("Cannot read properties of undefined (reading 'length')");
      const rows = await actual.queryRows(executor, query);
      if (when === 'after') throw new RangeError('The value of "offset" is out of range. Received 11');
      return rows;
    },
  };
});

const { db } = withTestDatabase();

// Vitest's setup (lib/protocols/register.ts) has loaded the domain already, bound to the real
// queryRows: load it again, so that the send, its errors and its answers see the mock above.
let sendMessage: typeof import('@/lib/messages/send').sendMessage;
let DomainError: typeof import('@/lib/errors').DomainError;
let errorResponse: typeof import('@/lib/http/route').errorResponse;
beforeAll(async () => {
  vi.resetModules();
  ({ sendMessage } = await import('@/lib/messages/send'));
  ({ DomainError } = await import('@/lib/errors'));
  ({ errorResponse } = await import('@/lib/http/route'));
});

afterEach(() => {
  fault.when = undefined;
});

async function saved(accountId: string, requestId: string) {
  return db()
    .select({ id: messages.id })
    .from(messages)
    .where(and(eq(messages.accountId, accountId), eq(messages.requestId, requestId)));
}

describe('a send whose answer the driver cannot read', () => {
  it('answers the message it saved, charged once, when the statement committed', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    fault.when = 'after';
    const sent = await sendMessage(db(), account.accountId, {
      origin: 'api',
      from: account.phone,
      to: testNumber(),
      content: 'committed, unread',
      requestId: 'unread-after',
    });
    expect(sent).toMatchObject({ status: 'queued', request_id: 'unread-after', content: 'committed, unread' });
    expect(await saved(account.accountId, 'unread-after')).toEqual([{ id: sent.id }]);
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(4);
  });

  it('answers 503 naming its request_id when nothing was saved, and the retry sends it once', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    const input = {
      origin: 'api' as const,
      from: account.phone,
      to: testNumber(),
      content: 'never ran',
      requestId: 'unread-before',
    };
    fault.when = 'before';
    const error = await sendMessage(db(), account.accountId, input).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(DomainError);
    const answer = errorResponse(error, 'req-1');
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBeTruthy();
    const body = await answer.json();
    expect(body).toMatchObject({ code: 'SERVICE_UNAVAILABLE', request_id: 'req-1' });
    expect(body.detail).toContain('request_id "unread-before"');
    expect(body.message_id).toEqual(expect.any(String));
    expect(await saved(account.accountId, 'unread-before')).toEqual([]);
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(5);

    fault.when = undefined;
    const retried = await sendMessage(db(), account.accountId, input);
    expect(await saved(account.accountId, 'unread-before')).toEqual([{ id: retried.id }]);
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(4);
  });
});
