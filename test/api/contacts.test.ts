import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { POST as sendBulk } from '@/app/api/v1/bulk-messages/route';
import { GET as read, DELETE as remove, PATCH as update } from '@/app/api/v1/contacts/[id]/route';
import { GET as exportCsv } from '@/app/api/v1/contacts/export/route';
import { POST as importCsv } from '@/app/api/v1/contacts/import/route';
import { POST as create, GET as list } from '@/app/api/v1/contacts/route';
import { GET as thread } from '@/app/api/v1/conversations/[number]/route';
import { GET as conversations } from '@/app/api/v1/conversations/route';
import { POST as received } from '@/app/api/v1/device/messages/received/route';
import { GET as readMessage } from '@/app/api/v1/messages/[id]/route';
import { GET as listMessages, POST as send } from '@/app/api/v1/messages/route';
import { POST as addOptOut } from '@/app/api/v1/opt-outs/route';
import { contacts, events } from '@/db/schema';
import { messageEventData } from '@/lib/event-catalogue/catalogue';
import { describeAuthCases } from '../auth-cases';
import { createTestAccount, sharedTestAccount, type TestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();
const { fixture } = sharedTestAccount(db);

const SOME_ID = '00000000-0000-4000-8000-000000000000';

describeAuthCases('GET /api/v1/contacts', { handler: list, request: {}, accepts: 'account', fixture });
describeAuthCases('POST /api/v1/contacts', {
  handler: create,
  request: () => ({ body: { number: testNumber() } }),
  accepts: 'account',
  fixture,
});
describeAuthCases('PATCH /api/v1/contacts/{id}', {
  handler: update,
  request: { params: { id: SOME_ID }, body: { name: 'x' }, method: 'PATCH' },
  accepts: 'account',
  fixture,
});
describeAuthCases('POST /api/v1/contacts/import', {
  handler: importCsv,
  request: { rawBody: 'number\n', headers: { 'content-type': 'text/csv' }, path: '/?dry_run=true' },
  accepts: 'account',
  fixture,
});
describeAuthCases('GET /api/v1/contacts/export', { handler: exportCsv, request: {}, accepts: 'account', fixture });

/** A distinct valid number for each index below 40,000 (+1 212/646/718/415, 555 exchange excluded). */
function numberOf(index: number): string {
  const area = [212, 646, 718, 415][index % 4];
  return `+1${area}200${String(Math.floor(index / 4)).padStart(4, '0')}`;
}

async function importFile(account: TestAccount, csv: string, dryRun = false) {
  return call(importCsv, {
    rawBody: csv,
    headers: { 'content-type': 'text/csv' },
    path: dryRun ? '/?dry_run=true' : '/',
    apiKey: account.apiKey,
  });
}

async function contactCount(accountId: string): Promise<number> {
  return (await db().select({ id: contacts.id }).from(contacts).where(eq(contacts.accountId, accountId))).length;
}

describe('/api/v1/contacts', () => {
  it('creates, reads, searches, changes and deletes a contact, normalising its number and tags', async () => {
    const account = await createTestAccount(db());
    const number = testNumber();
    const created = await call(create, {
      body: { name: ' Ada Lovelace ', number: number.replace('+1', '+1 '), tags: ['VIP', 'vip', 'customers'] },
      apiKey: account.apiKey,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Ada Lovelace',
      number,
      tags: ['vip', 'customers'],
      notes: null,
      opted_out: false,
    });
    const id = created.body.id;
    await call(create, { body: { name: 'Grace Hopper', number: testNumber() }, apiKey: account.apiKey });

    expect((await call(read, { params: { id }, apiKey: account.apiKey })).body.name).toBe('Ada Lovelace');
    const byName = await call(list, { path: '/?search=lovel', apiKey: account.apiKey });
    expect(byName.body.data.map((c: { id: string }) => c.id)).toEqual([id]);
    const byNumber = await call(list, {
      path: `/?search=${encodeURIComponent(number.slice(0, 9))}`,
      apiKey: account.apiKey,
    });
    expect(byNumber.body.data.map((c: { id: string }) => c.id)).toContain(id);
    const byTag = await call(list, { path: '/?tag=vip', apiKey: account.apiKey });
    expect(byTag.body.data.map((c: { id: string }) => c.id)).toEqual([id]);
    expect((await call(list, { apiKey: account.apiKey })).body.data).toHaveLength(2);

    const changed = await call(update, {
      params: { id },
      body: { notes: 'Met at the fair', tags: [] },
      method: 'PATCH',
      apiKey: account.apiKey,
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ name: 'Ada Lovelace', notes: 'Met at the fair', tags: [] });

    await call(addOptOut, { body: { phone: number }, apiKey: account.apiKey });
    expect((await call(read, { params: { id }, apiKey: account.apiKey })).body.opted_out).toBe(true);

    expect((await call(remove, { params: { id }, method: 'DELETE', apiKey: account.apiKey })).status).toBe(204);
    expect((await call(read, { params: { id }, apiKey: account.apiKey })).status).toBe(404);
  });

  it('answers 409 CONFLICT naming `number` for a number that is a contact already, on create and on change', async () => {
    const account = await createTestAccount(db());
    const [first, second] = [testNumber(), testNumber()];
    await call(create, { body: { number: first }, apiKey: account.apiKey });
    const other = await call(create, { body: { number: second }, apiKey: account.apiKey });
    const again = await call(create, { body: { number: first, name: 'x' }, apiKey: account.apiKey });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'CONFLICT', errors: [{ path: 'number' }] });
    const moved = await call(update, {
      params: { id: other.body.id },
      body: { number: first },
      method: 'PATCH',
      apiKey: account.apiKey,
    });
    expect(moved.status).toBe(409);
    expect(moved.body.errors[0].path).toBe('number');
    // Another account may hold the same number.
    const elsewhere = await createTestAccount(db());
    expect((await call(create, { body: { number: first }, apiKey: elsewhere.apiKey })).status).toBe(201);
  });

  it('answers 404 for another account’s contact, and changes nothing of it', async () => {
    const owner = await createTestAccount(db());
    const stranger = await createTestAccount(db());
    const created = await call(create, { body: { name: 'Mine', number: testNumber() }, apiKey: owner.apiKey });
    const id = created.body.id;
    expect((await call(read, { params: { id }, apiKey: stranger.apiKey })).status).toBe(404);
    const patched = await call(update, {
      params: { id },
      body: { name: 'Theirs' },
      method: 'PATCH',
      apiKey: stranger.apiKey,
    });
    expect(patched.status).toBe(404);
    expect((await call(remove, { params: { id }, method: 'DELETE', apiKey: stranger.apiKey })).status).toBe(404);
    expect((await call(list, { apiKey: stranger.apiKey })).body.data).toEqual([]);
    expect((await call(read, { params: { id }, apiKey: owner.apiKey })).body.name).toBe('Mine');
  });

  it.each([
    [{ number: '555-0100' }, 'number'],
    [{ number: '+14155550100', name: 'x'.repeat(101) }, 'name'],
    [{ number: '+14155550100', notes: 'x'.repeat(1001) }, 'notes'],
    [{ number: '+14155550100', tags: ['no spaces'] }, 'tags.0'],
    [{ number: '+14155550100', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 'tags'],
    [{ number: '+14155550100', colour: 'red' }, 'colour'],
  ])('refuses %j with 400 naming %s', async (body, path) => {
    const account = await createTestAccount(db());
    const res = await call(create, { body, apiKey: account.apiKey });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((error: { path: string }) => error.path)).toContain(path);
  });
});

describe('POST /api/v1/contacts/import', () => {
  /** 10,000 rows: every 100th has a bad number, every 250th repeats the number of two rows before. */
  function bigFile(): { csv: string; bad: number; repeats: number } {
    const lines = ['Name,Phone,Tags,Notes'];
    let bad = 0;
    let repeats = 0;
    for (let i = 0; i < 10_000; i++) {
      if (i % 100 === 99) {
        lines.push(`Person ${i},not-a-number,,`);
        bad++;
      } else if (i % 250 === 0 && i > 0) {
        lines.push(`Person ${i},${numberOf(i - 2)},,`);
        repeats++;
      } else {
        lines.push(`Person ${i},${numberOf(i)},customers;wave-${i % 3},"Note, with a comma"`);
      }
    }
    return { csv: `${lines.join('\n')}\n`, bad, repeats };
  }

  it('previews a 10,000-row file without writing, then imports it in one go, reporting the bad rows', async () => {
    const account = await createTestAccount(db());
    const { csv, bad, repeats } = bigFile();
    const valid = 10_000 - bad - repeats;

    const preview = await importFile(account, csv, true);
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({
      dry_run: true,
      valid,
      invalid_count: bad + repeats,
      would_create: valid,
      would_update: 0,
    });
    expect(preview.body.invalid).toHaveLength(100);
    expect(preview.body.invalid[0]).toEqual({
      row: 101,
      number: 'not-a-number',
      reason: expect.stringContaining('E.164'),
    });
    expect(await contactCount(account.accountId)).toBe(0);

    const imported = await importFile(account, csv);
    expect(imported.status).toBe(201);
    expect(imported.body).toMatchObject({ created: valid, updated: 0, invalid_count: bad + repeats });
    expect(imported.body.invalid.find((row: { reason: string }) => row.reason.startsWith('repeats'))).toEqual({
      row: 252,
      number: numberOf(248),
      reason: 'repeats the number of row 250',
    });
    expect(await contactCount(account.accountId)).toBe(valid);
    const [ada] = await db()
      .select()
      .from(contacts)
      .where(and(eq(contacts.accountId, account.accountId), eq(contacts.number, numberOf(3))));
    expect(ada).toMatchObject({ name: 'Person 3', tags: ['customers', 'wave-0'], notes: 'Note, with a comma' });

    const again = await importFile(account, csv, true);
    expect(again.body).toMatchObject({ would_create: 0, would_update: valid });
  }, 120_000);

  it('updates known numbers with the columns the file has and leaves the others', async () => {
    const account = await createTestAccount(db());
    const number = testNumber();
    await call(create, { body: { name: 'Old', number, tags: ['keep'], notes: 'kept' }, apiKey: account.apiKey });
    const res = await importFile(account, `number,name\n${number},New\n${testNumber()},\n`);
    expect(res.body).toMatchObject({ created: 1, updated: 1, invalid_count: 0 });
    const listed = await call(list, { path: `/?search=${encodeURIComponent(number)}`, apiKey: account.apiKey });
    expect(listed.body.data[0]).toMatchObject({ name: 'New', tags: ['keep'], notes: 'kept' });
  });

  it('reports rows with a bad tag, a long name or no number, and imports the rest', async () => {
    const account = await createTestAccount(db());
    const good = testNumber();
    const csv = [
      'name,number,tags',
      `Fine,${good},a|b`,
      `Tagged,${testNumber()},bad tag!`,
      `${'x'.repeat(101)},${testNumber()},`,
      'No number,,',
      '',
    ].join('\r\n');
    const res = await importFile(account, csv);
    expect(res.body.created).toBe(1);
    expect(res.body.invalid.map((row: { row: number; reason: string }) => [row.row, row.reason])).toEqual([
      [3, expect.stringContaining('tag')],
      [4, expect.stringContaining('name longer')],
      [5, 'no number'],
    ]);
  });

  it('answers 415 for a body that is not CSV and 413 past 50,000 rows', async () => {
    const account = await createTestAccount(db());
    const json = await call(importCsv, { body: { number: '+14155550100' }, apiKey: account.apiKey });
    expect(json.status).toBe(415);
    const rows = Array.from({ length: 50_001 }, () => '1').join('\n');
    const tooMany = await importFile(account, `number\n${rows}\n`, true);
    expect(tooMany.status).toBe(413);
    expect(tooMany.body.code).toBe('PAYLOAD_TOO_LARGE');
  });
});

describe('GET /api/v1/contacts/export', () => {
  it('exports a CSV that imports back into the same contacts', async () => {
    const source = await createTestAccount(db());
    const [a, b] = [testNumber(), testNumber()];
    await call(create, {
      body: { name: 'Ada, "the first"', number: a, tags: ['vip', 'x'], notes: 'line one\nline two' },
      apiKey: source.apiKey,
    });
    await call(create, { body: { name: '=HYPERLINK("x")', number: b }, apiKey: source.apiKey });
    const exported = await call(exportCsv, { apiKey: source.apiKey });
    expect(exported.status).toBe(200);
    expect(exported.contentType).toContain('text/csv');
    expect(exported.text.split('\r\n')[0]).toBe('name,number,tags,notes');
    expect(exported.text).toContain(`'=HYPERLINK`);

    const target = await createTestAccount(db());
    const imported = await importFile(target, exported.text);
    expect(imported.body).toMatchObject({ created: 2, invalid_count: 0 });
    const shape = (rows: Array<Record<string, unknown>>) =>
      rows
        .map(({ name, number, tags, notes }) => ({ name, number, tags, notes }))
        .sort((x, y) => String(x.number).localeCompare(String(y.number)));
    const before = (await call(list, { apiKey: source.apiKey })).body.data;
    const after = (await call(list, { apiKey: target.apiKey })).body.data;
    expect(shape(after)).toEqual(shape(before));
    expect((await call(exportCsv, { apiKey: target.apiKey })).text).toBe(exported.text);
  });
});

describe('contact names beside numbers', () => {
  it('names the counterpart in the messages list, a message, conversations and the webhook payload', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const [known, stranger] = [testNumber(), testNumber()];
    const contact = await call(create, { body: { name: 'Ada', number: known }, apiKey: account.apiKey });
    const ref = { id: contact.body.id, name: 'Ada' };
    const sent = await call(send, { body: { from: account.phone, to: known, content: 'hi' }, apiKey: account.apiKey });
    await call(send, { body: { from: account.phone, to: stranger, content: 'hi' }, apiKey: account.apiKey });
    const inbound = await call(received, {
      body: { from: known, content: 'hello back', device_message_id: crypto.randomUUID() },
      apiKey: account.deviceKey,
    });
    expect(inbound.status).toBe(201);

    const listed = await call(listMessages, { apiKey: account.apiKey });
    const byTo = Object.fromEntries(
      listed.body.data.map((m: { id: string; contact: unknown }) => [m.id, m.contact] as const),
    );
    expect(byTo[sent.body.id]).toEqual(ref);
    expect(byTo[inbound.body.id]).toEqual(ref);
    expect(listed.body.data.filter((m: { to: string }) => m.to === stranger)[0].contact).toBeNull();
    expect((await call(readMessage, { params: { id: sent.body.id }, apiKey: account.apiKey })).body.contact).toEqual(
      ref,
    );

    const threads = await call(conversations, { apiKey: account.apiKey });
    const adaThread = threads.body.data.find((t: { number: string }) => t.number === known);
    expect(adaThread).toMatchObject({ contact: ref, last_message: { contact: ref } });
    expect(threads.body.data.find((t: { number: string }) => t.number === stranger).contact).toBeNull();
    const messagesWithAda = await call(thread, { params: { number: known }, apiKey: account.apiKey });
    expect(
      messagesWithAda.body.data.every((m: { contact: unknown }) => JSON.stringify(m.contact) === JSON.stringify(ref)),
    ).toBe(true);

    const [event] = await db()
      .select({ payload: events.payload })
      .from(events)
      .where(and(eq(events.accountId, account.accountId), eq(events.type, 'message.received')));
    expect(event?.payload).toMatchObject({ id: inbound.body.id, contact: ref });
    expect(messageEventData.safeParse(event?.payload).success).toBe(true);
  });
});

describe('POST /api/v1/bulk-messages with contact_tags', () => {
  it('sends to the contacts carrying any of the tags, with their names as {{name}}', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const [ada, grace, other, named] = [testNumber(), testNumber(), testNumber(), testNumber()];
    await call(create, { body: { name: 'Ada', number: ada, tags: ['vip'] }, apiKey: account.apiKey });
    await call(create, { body: { name: 'Grace', number: grace, tags: ['staff', 'vip'] }, apiKey: account.apiKey });
    await call(create, { body: { name: 'Other', number: other, tags: ['else'] }, apiKey: account.apiKey });
    const res = await call(sendBulk, {
      body: { from: account.phone, recipients: [named], contact_tags: ['vip', 'staff'], content: 'Hi {{name}}' },
      apiKey: account.apiKey,
    });
    expect(res.status).toBe(201);
    expect(res.body.count).toBe(2);
    expect(res.body.rejected).toEqual([expect.objectContaining({ index: 0, to: named, code: 'VALIDATION_ERROR' })]);
    const sent = await call(listMessages, { apiKey: account.apiKey });
    const texts = Object.fromEntries(sent.body.data.map((m: { to: string; content: string }) => [m.to, m.content]));
    expect(texts).toMatchObject({ [ada]: 'Hi Ada', [grace]: 'Hi Grace' });
    expect(texts[other]).toBeUndefined();
  });

  it('answers 400 naming contact_tags when no contact carries them, or with encrypted', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const none = await call(sendBulk, {
      body: { from: account.phone, contact_tags: ['nobody'], content: 'Hi' },
      apiKey: account.apiKey,
    });
    expect(none.status).toBe(400);
    expect(none.body.errors[0].path).toBe('contact_tags');
    const neither = await call(sendBulk, { body: { from: account.phone, content: 'Hi' }, apiKey: account.apiKey });
    expect(neither.status).toBe(400);
    expect(neither.body.errors[0].path).toBe('recipients');
  });
});
