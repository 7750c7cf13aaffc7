import type { Executor } from '@/db';
import { findAccountById } from '@/lib/accounts/lookup';
import { phonesWithSimCards } from '@/lib/phones/read';
import type { z } from '@/lib/zod';
import { accountSidOf } from './ids';
import { accountBase, assertOwnAccountSid, rfc2822 } from './messages';
import type { accountResource, incomingNumberPage } from './schemas';

/** GET /Accounts/{AccountSid}.json: what setup wizards call to check the credentials. */
export async function twilioAccount(
  executor: Executor,
  accountId: string,
  pathSegment: string,
): Promise<z.infer<typeof accountResource>> {
  assertOwnAccountSid(accountId, pathSegment.replace(/\.json$/, ''));
  const row = await findAccountById(executor, accountId);
  const sid = accountSidOf(accountId);
  const base = accountBase(accountId);
  return {
    sid,
    owner_account_sid: sid,
    friendly_name: row?.email ?? sid,
    status: 'active',
    type: 'Full',
    date_created: rfc2822(row?.createdAt),
    date_updated: rfc2822(row?.createdAt),
    uri: `${base}.json`,
    subresource_uris: {
      messages: `${base}/Messages.json`,
      incoming_phone_numbers: `${base}/IncomingPhoneNumbers.json`,
    },
  };
}

/** GET /IncomingPhoneNumbers.json: the account's phones as Twilio numbers (one page: an account has few). */
export async function twilioIncomingNumbers(
  executor: Executor,
  accountId: string,
): Promise<z.infer<typeof incomingNumberPage>> {
  const rows = await phonesWithSimCards(executor, accountId);
  const base = accountBase(accountId);
  const sid = accountSidOf(accountId);
  const uri = `${base}/IncomingPhoneNumbers.json`;
  return {
    incoming_phone_numbers: rows.map((row) => {
      const numberSid = `PN${row.id.replaceAll('-', '')}`;
      return {
        sid: numberSid,
        account_sid: sid,
        phone_number: row.phone,
        friendly_name: row.label ?? row.phone,
        capabilities: { sms: true, mms: false, voice: false, fax: false },
        status: 'in-use' as const,
        date_created: rfc2822(row.createdAt),
        date_updated: rfc2822(row.createdAt),
        uri: `${base}/IncomingPhoneNumbers/${numberSid}.json`,
      };
    }),
    page: 0,
    page_size: Math.max(rows.length, 50),
    start: 0,
    end: Math.max(rows.length - 1, 0),
    uri,
    first_page_uri: uri,
    next_page_uri: null,
    previous_page_uri: null,
  };
}
