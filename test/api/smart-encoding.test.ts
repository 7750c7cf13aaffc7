import { describe, expect, it } from 'vitest';
import { POST as sendBulk } from '@/app/api/v1/bulk-messages/route';
import { POST as send } from '@/app/api/v1/messages/route';
import { GET as getSending, PATCH as patchSending } from '@/app/api/v1/settings/sending/route';
import { createTestAccount, type TestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

const TYPOGRAPHIC = 'Don’t miss it — 20% off…';
const PLAIN = "Don't miss it - 20% off...";

function sendOne(who: TestAccount, extra: Record<string, unknown>) {
  return call(send, { body: { from: who.phone, to: testNumber(), ...extra }, apiKey: who.apiKey });
}

describe('smart_encoding on a send', () => {
  it('true: the text is sent with GSM-7 look-alikes replaced, counted as GSM-7', async () => {
    const who = await createTestAccount(db());
    const res = await sendOne(who, { content: TYPOGRAPHIC, smart_encoding: true });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ content: PLAIN, encoding: 'GSM-7', segments: 1 });
  });

  it('absent (the account default off) or false: the text goes as written, in UCS-2', async () => {
    const who = await createTestAccount(db());
    const res = await sendOne(who, { content: TYPOGRAPHIC });
    expect(res.body).toMatchObject({ content: TYPOGRAPHIC, encoding: 'UCS-2', segments: 1 });
    const long = `${TYPOGRAPHIC} ${'x'.repeat(60)}`;
    const off = await sendOne(who, { content: long, smart_encoding: false });
    expect(off.body).toMatchObject({ content: long, encoding: 'UCS-2', segments: 2 });
  });

  it('the account default (Settings → Sending) applies when a send does not say, and a send may turn it off', async () => {
    const who = await createTestAccount(db());
    expect((await call(getSending, { apiKey: who.apiKey })).body.smart_encoding).toBe(false);
    const patched = await call(patchSending, { method: 'PATCH', body: { smart_encoding: true }, apiKey: who.apiKey });
    expect(patched.body.smart_encoding).toBe(true);
    const long = `${TYPOGRAPHIC} ${'x'.repeat(60)}`;
    const on = await sendOne(who, { content: long });
    expect(on.body).toMatchObject({ content: `${PLAIN} ${'x'.repeat(60)}`, encoding: 'GSM-7', segments: 1 });
    const off = await sendOne(who, { content: long, smart_encoding: false });
    expect(off.body).toMatchObject({ content: long, encoding: 'UCS-2', segments: 2 });
  });

  it('a bulk replaces in every rendered text, vars included, and a dry run shows the same', async () => {
    const who = await createTestAccount(db());
    const body = {
      from: who.phone,
      recipients: [{ to: testNumber(), vars: { name: 'Zoë “Z”' } }, testNumber()],
      content: 'Hi {{name}} — it’s on…',
      smart_encoding: true,
    };
    const dry = await call(sendBulk, {
      body: { ...body, recipients: [body.recipients[0]], dry_run: true },
      apiKey: who.apiKey,
    });
    expect(dry.status).toBe(200);
    expect(dry.body.messages[0]).toMatchObject({ content: 'Hi Zoe "Z" - it\'s on...', encoding: 'GSM-7' });
    const res = await call(sendBulk, { body: { ...body, recipients: [body.recipients[0]] }, apiKey: who.apiKey });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ encoding: 'GSM-7', segments: 1 });
  });

  it('refuses a text that smart encoding takes past 1600 characters, naming content', async () => {
    const who = await createTestAccount(db());
    const res = await sendOne(who, { content: `${'a'.repeat(1598)}…`, smart_encoding: true });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(['content']);
    const fits = await sendOne(who, { content: `${'a'.repeat(1597)}…`, smart_encoding: true });
    expect(fits.status).toBe(201);
    expect(fits.body.content).toHaveLength(1600);
  });

  it('refuses smart_encoding with a data SMS and a value that is not a boolean, naming the field', async () => {
    const who = await createTestAccount(db());
    for (const extra of [
      { data: 'aGk=', port: 1000, smart_encoding: true },
      { content: 'x', smart_encoding: 'yes' },
    ]) {
      const res = await sendOne(who, extra);
      expect(res.status).toBe(400);
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain('smart_encoding');
    }
    const bad = await call(patchSending, { method: 'PATCH', body: { smart_encoding: 1 }, apiKey: who.apiKey });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { path: string }) => e.path)).toContain('smart_encoding');
  });
});
