import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { accounts, devices, optOuts, phoneGroups, phones } from '@/db/schema';
import { DomainError } from '@/lib/errors';
import { acceptInBatch, type BatchedSend } from '@/lib/messages/accept-batch';
import { sendBulk } from '@/lib/messages/bulk';
import { type SendInput, sendMessage } from '@/lib/messages/send';
import { countryOf } from '@/lib/phone-number';
import { citusMode } from '../database';
import { createTestAccount, type TestAccount, testNumber } from '../fixtures';
import { withTestDatabase } from '../setup-db';

/**
 * A send's eligibility is written once (lib/messages/eligibility.ts) for the one-statement send and
 * its batch. Every case goes through both: the batch must take exactly the sends the single
 * statement accepts, and leave every refused one to the single statement, which names the refusal.
 */

const { db } = withTestDatabase();

type Case = {
  name: string;
  /** Changes the account (or another) so that the send is refused, and returns the send. */
  arrange: (account: TestAccount) => Promise<Partial<SendInput>>;
  /** The single statement's answer: accepted, or the refusal's code (and field). */
  single: 'accepted' | { code: string; field?: string };
};

const cases: Case[] = [
  { name: 'an eligible send', arrange: async () => ({}), single: 'accepted' },
  {
    name: "another account's phone",
    arrange: async () => ({ from: (await createTestAccount(db())).phone }),
    single: { code: 'FORBIDDEN' },
  },
  {
    name: 'a phone whose SIM check is pending',
    arrange: async (account) => {
      await db().update(phones).set({ simVerification: 'pending' }).where(eq(phones.id, account.phoneId));
      return {};
    },
    single: { code: 'FORBIDDEN' },
  },
  {
    name: 'a SIM slot the phone has not reported',
    arrange: async (account) => {
      await db()
        .update(devices)
        .set({ simCards: [{ slot: 1, phone_number: null, carrier: null }] })
        .where(eq(devices.id, account.deviceId));
      return { sim: 2 };
    },
    single: { code: 'VALIDATION_ERROR', field: 'sim' },
  },
  {
    name: 'a request_id already used',
    arrange: async (account) => {
      const requestId = randomUUID();
      await sendMessage(db(), account.accountId, {
        origin: 'api',
        from: account.phone,
        to: testNumber(),
        content: 'first',
        requestId,
      });
      return { requestId };
    },
    single: { code: 'DUPLICATE_REQUEST' },
  },
  {
    name: 'a recipient who opted out',
    arrange: async (account) => {
      const to = testNumber();
      await db().insert(optOuts).values({ accountId: account.accountId, phone: to, source: 'manual' });
      return { to };
    },
    single: { code: 'RECIPIENT_OPTED_OUT' },
  },
  {
    name: 'a country the account does not allow',
    arrange: async (account) => {
      await db()
        .update(accounts)
        .set({ allowedCountries: ['GB'] })
        .where(eq(accounts.id, account.accountId));
      return {};
    },
    single: { code: 'RECIPIENT_COUNTRY_NOT_ALLOWED' },
  },
  {
    name: 'a group with no credit',
    arrange: async (account) => {
      await db().update(phoneGroups).set({ balance: 0 }).where(eq(phoneGroups.id, account.defaultGroupId));
      return {};
    },
    single: { code: 'INSUFFICIENT_CREDITS' },
  },
];

function batched(account: TestAccount, input: SendInput): BatchedSend {
  const sendAt = new Date();
  return {
    id: randomUUID(),
    accountId: account.accountId,
    phoneId: null,
    groupId: null,
    from: input.from as string,
    fromGroup: null,
    sim: input.sim ?? null,
    to: input.to,
    country: countryOf(input.to) ?? null,
    content: input.content,
    requestId: input.requestId ?? null,
    segments: 1,
    encoding: 'GSM-7',
    sendAt,
    expiresAt: new Date(sendAt.getTime() + 86_400_000),
    priority: 'normal',
    callbackWebhookId: null,
    kind: 'message',
    dataPort: null,
    bulkId: null,
    encrypted: false,
    origin: null,
    createdAt: null,
  };
}

/** The single statement's answer: a send inside a transaction has no pipeline, so it goes alone. */
async function single(account: TestAccount, input: SendInput): Promise<'accepted' | { code: string; field?: string }> {
  try {
    await db().transaction((tx) => sendMessage(tx, account.accountId, input));
    return 'accepted';
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    const field = error.errors?.[0]?.path;
    return field ? { code: error.code, field } : { code: error.code };
  }
}

describe('send eligibility: the single statement and the batch agree', () => {
  let account: TestAccount;
  beforeEach(async () => {
    account = await createTestAccount(db(), { credits: 10 });
  });

  for (const testCase of cases) {
    it(`${testCase.name}: ${testCase.single === 'accepted' ? 'both accept' : 'the batch leaves it, the single send refuses'}`, async () => {
      const input: SendInput = {
        origin: 'api',
        from: account.phone,
        to: testNumber(),
        content: 'Hello',
        ...(await testCase.arrange(account)),
      };
      const fromBatch = await acceptInBatch(db(), batched(account, input));
      // On a Citus database the batch never runs (lib/messages/accept-batch.ts): it leaves every send.
      const batchAccepts = testCase.single === 'accepted' && !citusMode();
      expect(fromBatch === undefined ? 'left' : 'accepted').toBe(batchAccepts ? 'accepted' : 'left');
      // The single statement sees the same state (a fresh request_id where the batch just used one).
      const again = testCase.single === 'accepted' ? { ...input, to: testNumber() } : input;
      expect(await single(account, again)).toEqual(testCase.single);
    });
  }
});

/** The single send's refusal, with its detail. */
async function refusalOf(account: TestAccount, input: SendInput): Promise<{ code: string; detail: string }> {
  const error = await db()
    .transaction((tx) => sendMessage(tx, account.accountId, input))
    .then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
  if (!(error instanceof DomainError)) throw new Error(`expected a refusal, got ${String(error)}`);
  return { code: error.code, detail: error.detail };
}

describe('send eligibility: a bulk screens its recipients by the same rules, with the same words', () => {
  const screened = cases.filter((testCase) => {
    const { single } = testCase;
    return single !== 'accepted' && ['RECIPIENT_OPTED_OUT', 'RECIPIENT_COUNTRY_NOT_ALLOWED'].includes(single.code);
  });
  it('the cases cover both recipient screens', () => {
    expect(screened.map((testCase) => (testCase.single as { code: string }).code)).toEqual([
      'RECIPIENT_OPTED_OUT',
      'RECIPIENT_COUNTRY_NOT_ALLOWED',
    ]);
  });

  for (const testCase of screened) {
    it(`${testCase.name}: the bulk rejects the recipient with the single send's code and text`, async () => {
      const account = await createTestAccount(db(), { credits: 10 });
      const input: SendInput = {
        origin: 'api',
        from: account.phone,
        to: testNumber(),
        content: 'Hello',
        ...(await testCase.arrange(account)),
      };
      const refusal = await refusalOf(account, input);
      // A bulk of that recipient alone answers as the single send does.
      const alone = await sendBulk(db(), account.accountId, { ...input, origin: 'api', recipients: [input.to] }).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(alone).toBeInstanceOf(DomainError);
      expect({ code: (alone as DomainError).code, detail: (alone as DomainError).detail }).toEqual(refusal);
      // Beside a recipient who may be texted (where the rule lets one be), it is rejected with the same words.
      const allowed = testCase.single !== 'accepted' && testCase.single.code === 'RECIPIENT_OPTED_OUT';
      if (!allowed) return;
      const bulk = await sendBulk(db(), account.accountId, {
        ...input,
        origin: 'api',
        recipients: [testNumber(), input.to],
      });
      expect(bulk.count).toBe(1);
      expect(bulk.rejected).toEqual([{ index: 1, to: input.to, ...refusal }]);
    });
  }
});
