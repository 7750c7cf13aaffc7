import { createCipheriv, createDecipheriv, pbkdf2Sync, randomBytes } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import * as integratorMessages from '@/app/api/3rdparty/v1/messages/route';
import { POST as sendBulk } from '@/app/api/v1/bulk-messages/route';
import { GET as readMessage } from '@/app/api/v1/messages/[id]/route';
import { POST as sendMessage } from '@/app/api/v1/messages/route';
import { POST as addOptOut } from '@/app/api/v1/opt-outs/route';
import { messages } from '@/db/schema';
import { isSmsGateEncrypted } from '@/lib/crypto/smsgate-format';
import { addTestPhone, balanceOf, createTestAccount, type TestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';
import { type PairedApp, pairVerifiedApp, pullAs, signedCallback } from '../smsgate-app';

/**
 * Encrypted messages with the SMSGate app. Wire shapes: the app's GatewayApi.kt `Message`
 * (`isEncrypted`, `textMessage.text`, `phoneNumbers`) and MessagesService.kt, which decrypts the text
 * and each number with EncryptionService.kt (app commit 0cdc5d8); the integrator's `isEncrypted`
 * from the reference server's `smsgateway.Message` (server commit 22074dd). The ciphertext is made
 * here with Node's crypto, as client-py's `Encryptor` (android_sms_gateway/encryption.py) does.
 */
const PASSPHRASE = 'correct horse battery staple';

function encrypt(cleartext: string): string {
  const salt = randomBytes(16);
  const key = pbkdf2Sync(PASSPHRASE, salt, 1_000, 32, 'sha1');
  const cipher = createCipheriv('aes-256-cbc', key, salt);
  const data = Buffer.concat([cipher.update(cleartext, 'utf8'), cipher.final()]);
  return `$aes-256-cbc/pbkdf2-sha1$i=1000$${salt.toString('base64')}$${data.toString('base64')}`;
}

/** What the app does with a pulled value (EncryptionService.decrypt). */
function decrypt(encrypted: string): string {
  const [, , params, salt64, data64] = encrypted.split('$');
  const salt = Buffer.from(salt64 ?? '', 'base64');
  const key = pbkdf2Sync(PASSPHRASE, salt, Number(params?.slice(2)), 32, 'sha1');
  const decipher = createDecipheriv('aes-256-cbc', key, salt);
  return Buffer.concat([decipher.update(Buffer.from(data64 ?? '', 'base64')), decipher.final()]).toString('utf8');
}

const { db } = withTestDatabase();

let account: TestAccount;
let app: PairedApp;
beforeAll(async () => {
  account = await createTestAccount(db(), { credits: 20 });
  app = await pairVerifiedApp(account);
  await pullAs(app);
});

describe('POST /api/v1/messages with encrypted: true', () => {
  it('stores the ciphertext, charges one credit, and the app pulls it with isEncrypted: true', async () => {
    const to = testNumber();
    const before = await balanceOf(db(), account.defaultGroupId);
    const body = { from: account.phone, to: encrypt(to), content: encrypt('Your code is 4821'), encrypted: true };
    const res = await call(sendMessage, { body, apiKey: account.apiKey });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ encrypted: true, to: body.to, content: body.content, status: 'queued' });
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(before - 1);

    const pulled = (await pullAs(app)) as Array<Record<string, any>>;
    const item = pulled.find((message) => message.id === res.body.id);
    expect(item).toMatchObject({ isEncrypted: true, textMessage: { text: body.content }, phoneNumbers: [body.to] });
    expect(decrypt(item?.textMessage.text)).toBe('Your code is 4821');
    expect(decrypt(item?.phoneNumbers[0])).toBe(to);

    const read = await call(readMessage, { params: { id: res.body.id }, apiKey: account.apiKey });
    expect(read.body.encrypted).toBe(true);
  });

  it('a plain send says encrypted: false and the app pulls isEncrypted: false', async () => {
    const res = await call(sendMessage, {
      body: { from: account.phone, to: testNumber(), content: 'plain' },
      apiKey: account.apiKey,
    });
    expect(res.status).toBe(201);
    expect(res.body.encrypted).toBe(false);
    const item = (await pullAs(app)).find((message) => message.id === res.body.id) as Record<string, unknown>;
    expect(item.isEncrypted).toBe(false);
  });

  it('is refused from a simulator phone with a problem naming `encrypted`, and charges nothing', async () => {
    const simulator = await addTestPhone(db(), account);
    const before = await balanceOf(db(), account.defaultGroupId);
    const res = await call(sendMessage, {
      body: { from: simulator.phone, to: encrypt(testNumber()), content: encrypt('x'), encrypted: true },
      apiKey: account.apiKey,
    });
    expect(res.status).toBe(400);
    expect(res.contentType).toBe('application/problem+json');
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.detail).toContain('not paired with the SMSGate app');
    expect(res.body.errors).toEqual([expect.objectContaining({ path: 'encrypted' })]);
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(before);
  });

  it('refuses from_group, a clear number or text with encrypted: true, and a ciphertext without it', async () => {
    const cases = [
      [
        { from_group: account.defaultGroupId, to: encrypt('+14155550100'), content: encrypt('x'), encrypted: true },
        'from_group',
      ],
      [{ from: account.phone, to: testNumber(), content: encrypt('x'), encrypted: true }, 'to'],
      [{ from: account.phone, to: encrypt('+14155550100'), content: 'clear', encrypted: true }, 'content'],
      [{ from: account.phone, to: encrypt('+14155550100'), content: 'clear' }, 'to'],
      [{ from: account.phone, to: testNumber(), content: 'x'.repeat(1601) }, 'content'],
    ] as const;
    for (const [body, path] of cases) {
      const res = await call(sendMessage, { body, apiKey: account.apiKey });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors.map((error: { path: string }) => error.path)).toContain(path);
    }
  });

  it('a dry run plans one credit and writes nothing', async () => {
    const before = await balanceOf(db(), account.defaultGroupId);
    const to = encrypt(testNumber());
    const res = await call(sendMessage, {
      body: { from: account.phone, to, content: encrypt('maybe'), encrypted: true, dry_run: true },
      apiKey: account.apiKey,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ dry_run: true, messages: [{ to, credits: 1 }], rejected: [], sufficient: true });
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(before);
    expect(await db().$count(messages, eq(messages.to, to))).toBe(0);
  });

  it('is idempotent on request_id', async () => {
    const body = {
      from: account.phone,
      to: encrypt(testNumber()),
      content: encrypt('once'),
      encrypted: true,
      request_id: `enc-${crypto.randomUUID()}`,
    };
    expect((await call(sendMessage, { body, apiKey: account.apiKey })).status).toBe(201);
    const again = await call(sendMessage, { body, apiKey: account.apiKey });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('DUPLICATE_REQUEST');
  });
});

describe('POST /api/v1/bulk-messages with encrypted: true', () => {
  it('charges one credit per recipient entry, with no opt-out check (the numbers are unreadable)', async () => {
    const stopped = testNumber();
    await call(addOptOut, { body: { phone: stopped }, apiKey: account.apiKey });
    const recipients = [encrypt(stopped), encrypt(testNumber()), encrypt(testNumber())];
    const before = await balanceOf(db(), account.defaultGroupId);
    const res = await call(sendBulk, {
      body: { from: account.phone, recipients, content: encrypt('Table ready'), encrypted: true },
      apiKey: account.apiKey,
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ count: 3, rejected: [] });
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(before - 3);
    const rows = await db()
      .select()
      .from(messages)
      .where(and(eq(messages.bulkId, res.body.id), eq(messages.encrypted, true)));
    expect(rows.map((row) => row.to).sort()).toEqual([...recipients].sort());
  });

  it('refuses 120 recipients of `i=1` × 2722 at once, naming each (a linear format check)', async () => {
    const recipients = Array.from({ length: 120 }, () => `$aes-256-cbc/pbkdf2-sha1$${'i=1'.repeat(2722)}`);
    const started = performance.now();
    const res = await call(sendBulk, {
      body: { from: account.phone, recipients, content: encrypt('x'), encrypted: true },
      apiKey: account.apiKey,
    });
    // The regular expression held the event loop 4.75 s; splitting on `$` takes milliseconds.
    expect(performance.now() - started).toBeLessThan(1500);
    expect(res.status).toBe(400);
    const paths = new Set(res.body.errors.map((error: { path: string }) => error.path));
    expect([...paths]).toEqual(recipients.map((_, index) => `recipients.${index}`));
  });

  it('refuses { to, vars } recipients when encrypted', async () => {
    const res = await call(sendBulk, {
      body: {
        from: account.phone,
        recipients: [{ to: testNumber(), vars: { name: 'Ada' } }],
        content: encrypt('x'),
        encrypted: true,
      },
      apiKey: account.apiKey,
    });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].path).toBe('recipients.0');
  });
});

describe('POST /api/3rdparty/v1/messages with isEncrypted', () => {
  const basic = () => ({ authorization: `Basic ${Buffer.from(`u:${account.apiKey}`).toString('base64')}` });

  it('sends from the named app phone and answers isEncrypted: true; one credit per phone number', async () => {
    const phoneNumbers = [encrypt(testNumber()), encrypt(testNumber())];
    const before = await balanceOf(db(), account.defaultGroupId);
    const res = await call(integratorMessages.POST, {
      path: '/api/3rdparty/v1/messages',
      headers: basic(),
      body: { textMessage: { text: encrypt('Hello') }, phoneNumbers, isEncrypted: true, deviceId: account.phoneId },
    });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({ isEncrypted: true, state: 'Pending', deviceId: account.phoneId });
    expect(res.body.recipients.map((r: { phoneNumber: string }) => r.phoneNumber)).toEqual(phoneNumbers);
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(before - 2);
  });

  it('needs deviceId, and refuses a simulator phone', async () => {
    const body = { message: encrypt('Hello'), phoneNumbers: [encrypt(testNumber())], isEncrypted: true };
    const missing = await call(integratorMessages.POST, { path: '/api/3rdparty/v1/messages', headers: basic(), body });
    expect(missing.status).toBe(400);
    const simulator = await addTestPhone(db(), account);
    const refused = await call(integratorMessages.POST, {
      path: '/api/3rdparty/v1/messages',
      headers: basic(),
      body: { ...body, deviceId: simulator.phoneId },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([expect.objectContaining({ path: 'encrypted' })]);
  });
});

describe('sms:received from the app, encrypted', () => {
  it('keeps the ciphertext sender and text, marked encrypted: true', async () => {
    const sender = encrypt('+14155550188');
    const text = encrypt('Meet at 5');
    const res = await signedCallback(app, 'sms:received', {
      messageId: 'enc-in-1',
      message: text,
      phoneNumber: sender,
      receivedAt: new Date().toISOString(),
    });
    expect(res.status, res.text).toBe(200);
    const [row] = await db()
      .select()
      .from(messages)
      .where(and(eq(messages.phoneId, account.phoneId), eq(messages.content, text)));
    expect(row).toMatchObject({ direction: 'inbound', encrypted: true, from: sender });
  });

  it('an SMS marked isEncrypted with a clear sender keeps the sender as a number', async () => {
    const text = encrypt('Running late');
    const res = await signedCallback(app, 'sms:received', {
      messageId: 'enc-in-2',
      message: text,
      phoneNumber: '+14155550189',
      isEncrypted: true,
    });
    expect(res.status, res.text).toBe(200);
    const [row] = await db().select().from(messages).where(eq(messages.content, text));
    expect(row).toMatchObject({ encrypted: true, from: '+14155550189' });
  });

  it('refuses a ciphertext sender with CR LF or ESC, or of 8,034 characters, with 400 on payload.sender', async () => {
    const [, , params, salt, data] = encrypt('+14155550191').split('$');
    const prefix = '$aes-256-cbc/pbkdf2-sha1$';
    const senders = [
      `${prefix}${params}$${salt}$${data}\r\nInjected yes`,
      `${prefix}${params}\u001b[31m$${salt}$${data}`,
      `${prefix}${params}$${salt}$${data}`.padEnd(8034, 'A'),
    ];
    for (const [index, sender] of senders.entries()) {
      expect(isSmsGateEncrypted(sender)).toBe(true);
      const text = encrypt(`refused ${index}`);
      const res = await signedCallback(app, 'sms:received', {
        messageId: `enc-bad-sender-${index}`,
        message: text,
        phoneNumber: sender,
        isEncrypted: true,
      });
      expect([index, res.status]).toEqual([index, 400]);
      expect(res.body.message).toMatch(/payload\.sender/);
      expect(await db().$count(messages, eq(messages.content, text))).toBe(0);
    }
  });

  it('a clear SMS stays encrypted: false', async () => {
    await signedCallback(app, 'sms:received', {
      messageId: 'clear-1',
      message: 'hello there',
      phoneNumber: '+14155550190',
    });
    const [row] = await db().select().from(messages).where(eq(messages.content, 'hello there'));
    expect(row?.encrypted).toBe(false);
  });
});
