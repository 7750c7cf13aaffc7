import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import { connect } from 'smpp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POST as reportStatus } from '@/app/api/v1/device/messages/[id]/status/route';
import { POST as received } from '@/app/api/v1/device/messages/received/route';
import { POST as claim } from '@/app/api/v1/device/outbox/claim/route';
import { GET as getMessage } from '@/app/api/v1/messages/[id]/route';
import { DELETE as revoke } from '@/app/api/v1/smpp/credentials/[system_id]/route';
import { POST as createCredential, GET as listCredentials } from '@/app/api/v1/smpp/credentials/route';
import { auditLog, rateLimitHits, smppDeliveries } from '@/db/schema';
import { registry } from '@/lib/metrics/registry';
import { startSmpp } from '@/lib/protocols/smpp/listen';
import { startSmppServer } from '@/lib/protocols/smpp/server';
import { freePort } from '@/scripts/free-port';
import { createTestAccount, type TestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';
import { boundClient, type Client, nameOf, smppClient, testSmppServer, until } from '../smpp-client';

const { db } = withTestDatabase();

let server: Awaited<ReturnType<typeof testSmppServer>>;
const clients: Client[] = [];

beforeAll(async () => {
  server = await testSmppServer({ window: 2 });
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await server.close();
});

type Login = { system_id: string; password: string };

async function newLogin(account: TestAccount, body: Record<string, unknown> = {}): Promise<Login> {
  const res = await call(createCredential, { path: '/api/v1/smpp/credentials', body, apiKey: account.apiKey });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

async function bound(kind: 'bind_transmitter' | 'bind_receiver' | 'bind_transceiver', login: Login) {
  const client = await boundClient(server.port, kind, login);
  clients.push(client);
  return client;
}

async function message(account: TestAccount, id: string) {
  const res = await call(getMessage, { path: `/api/v1/messages/${id}`, params: { id }, apiKey: account.apiKey });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

async function phoneReports(account: TestAccount, id: string, statuses: string[]) {
  const claimed = await call(claim, { path: '/api/v1/device/outbox/claim', body: {}, apiKey: account.deviceKey });
  expect(claimed.body.data.map((m: { id: string }) => m.id)).toContain(id);
  for (const status of statuses) {
    const res = await call(reportStatus, {
      path: `/api/v1/device/messages/${id}/status`,
      params: { id },
      body: { status, ...(status === 'failed' ? { error: 'RESULT_ERROR_GENERIC_FAILURE' } : {}) },
      apiKey: account.deviceKey,
    });
    expect(res.status, res.text).toBe(200);
  }
}

const digits = (e164: string) => e164.slice(1);

describe('SMPP logins (POST/GET/DELETE /api/v1/smpp/credentials)', () => {
  it('creates a login with a password shown once, lists it without, and audits both changes', async () => {
    const account = await createTestAccount(db());
    const login = await newLogin(account, { system_id: 'acme-kannel-01' });
    expect(login.system_id).toBe('acme-kannel-01');
    expect(login.password).toMatch(/^[A-Za-z0-9]{8}$/);
    const generated = await newLogin(account);
    expect(generated.system_id.length).toBeLessThanOrEqual(16);
    const list = await call(listCredentials, { path: '/api/v1/smpp/credentials', apiKey: account.apiKey });
    expect(list.status).toBe(200);
    expect(list.body.data.map((c: Login) => c.system_id).sort()).toEqual(
      [generated.system_id, 'acme-kannel-01'].sort(),
    );
    expect(list.text).not.toContain(login.password);
    const taken = await call(createCredential, {
      path: '/api/v1/smpp/credentials',
      body: { system_id: 'acme-kannel-01' },
      apiKey: (await createTestAccount(db())).apiKey,
    });
    expect(taken.status).toBe(409);
    const gone = await call(revoke, {
      method: 'DELETE',
      path: '/api/v1/smpp/credentials/acme-kannel-01',
      params: { system_id: 'acme-kannel-01' },
      apiKey: account.apiKey,
    });
    expect(gone.status).toBe(204);
    const actions = await db()
      .select({ action: auditLog.action })
      .from(auditLog)
      .where(eq(auditLog.accountId, account.accountId));
    expect(actions.map((a) => a.action)).toEqual(
      expect.arrayContaining(['smpp_credential.created', 'smpp_credential.revoked']),
    );
  });

  it('refuses a system_id longer than 16 characters', async () => {
    const account = await createTestAccount(db());
    const res = await call(createCredential, {
      path: '/api/v1/smpp/credentials',
      body: { system_id: 'a'.repeat(17) },
      apiKey: account.apiKey,
    });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].path).toBe('system_id');
  });
});

describe('binds', () => {
  it('binds as transmitter, receiver and transceiver; answers enquire_link and unbind', async () => {
    const account = await createTestAccount(db(), { plan: 'pro' });
    const login = await newLogin(account);
    for (const kind of ['bind_transmitter', 'bind_receiver', 'bind_transceiver'] as const) {
      const client = await bound(kind, login);
      expect((await client.request('enquire_link')).command_status).toBe(0);
      expect((await client.request('unbind')).command_status).toBe(0);
      await until(() => client.closed());
    }
  });

  it('answers ESME_RINVSYSID to an unknown system_id and ESME_RINVPASWD to a wrong password, then closes', async () => {
    const account = await createTestAccount(db());
    const login = await newLogin(account);
    const unknown = await smppClient(server.port);
    const r1 = await unknown.request('bind_transceiver', { system_id: 'nobody-here', password: 'x' });
    expect(nameOf(r1.command_status)).toBe('ESME_RINVSYSID');
    await until(() => unknown.closed());
    const wrong = await smppClient(server.port);
    const r2 = await wrong.request('bind_transceiver', { system_id: login.system_id, password: 'wrong' });
    expect(nameOf(r2.command_status)).toBe('ESME_RINVPASWD');
    await until(() => wrong.closed());
  });

  it('locks a login after 5 wrong passwords in a row: the right one is refused too', async () => {
    const account = await createTestAccount(db());
    const login = await newLogin(account);
    for (let i = 0; i < 5; i += 1) {
      const client = await smppClient(server.port);
      const resp = await client.request('bind_transmitter', { system_id: login.system_id, password: `bad${i}` });
      expect(nameOf(resp.command_status)).toBe('ESME_RINVPASWD');
      await client.close();
    }
    const client = await smppClient(server.port);
    const resp = await client.request('bind_transmitter', login);
    expect(nameOf(resp.command_status)).toBe('ESME_RINVPASWD');
    await client.close();
    const list = await call(listCredentials, { path: '/api/v1/smpp/credentials', apiKey: account.apiKey });
    expect(list.body.data[0].locked_until).not.toBeNull();
  });

  it('answers ESME_RBINDFAIL past the plan’s binds (free: 2)', async () => {
    const account = await createTestAccount(db());
    const login = await newLogin(account);
    await bound('bind_transmitter', login);
    await bound('bind_receiver', login);
    const third = await smppClient(server.port);
    const resp = await third.request('bind_transceiver', login);
    expect(nameOf(resp.command_status)).toBe('ESME_RBINDFAIL');
    await until(() => third.closed());
  });

  it('refuses submit_sm before a bind and on a receiver bind; generic_nack for an unknown command', async () => {
    const account = await createTestAccount(db(), { plan: 'pro' });
    const login = await newLogin(account);
    const loose = await smppClient(server.port);
    clients.push(loose);
    const before = await loose.request('submit_sm', { destination_addr: '14155550100', short_message: 'hi' });
    expect(nameOf(before.command_status)).toBe('ESME_RINVBNDSTS');
    const receiver = await bound('bind_receiver', login);
    const resp = await receiver.request('submit_sm', { destination_addr: '14155550100', short_message: 'hi' });
    expect(nameOf(resp.command_status)).toBe('ESME_RINVBNDSTS');
    const nack = new Promise<number>((resolve) =>
      receiver.session.once('generic_nack', (pdu) => resolve(pdu.command_status)),
    );
    const unknown = Buffer.alloc(16);
    unknown.writeUInt32BE(16, 0);
    unknown.writeUInt32BE(0x00000999, 4);
    unknown.writeUInt32BE(0, 8);
    unknown.writeUInt32BE(77, 12);
    receiver.session.socket.write(unknown);
    expect(nameOf(await nack)).toBe('ESME_RINVCMDID');
  });

  it('closes the binds of a revoked login at once', async () => {
    const account = await createTestAccount(db());
    const login = await newLogin(account);
    const client = await bound('bind_transceiver', login);
    const res = await call(revoke, {
      method: 'DELETE',
      path: `/api/v1/smpp/credentials/${login.system_id}`,
      params: { system_id: login.system_id },
      apiKey: account.apiKey,
    });
    expect(res.status).toBe(204);
    await until(() => client.closed());
  });
});

describe('submit_sm', () => {
  let account: TestAccount;
  let client: Client;

  beforeAll(async () => {
    account = await createTestAccount(db(), { plan: 'pro', credits: 50 });
    client = await bound('bind_transceiver', await newLogin(account));
  });

  async function submitted(fields: Record<string, unknown>) {
    const resp = await client.request('submit_sm', { source_addr: digits(account.phone), ...fields });
    expect(nameOf(resp.command_status)).toBe('ESME_ROK');
    expect(String(resp.message_id).length).toBeLessThanOrEqual(64);
    return message(account, String(resp.message_id));
  }

  it('sends GSM-7 text (data_coding 0) from the phone named by source_addr, as the message id', async () => {
    const to = testNumber();
    const sent = await submitted({
      destination_addr: digits(to),
      data_coding: 0,
      short_message: 'Hello from SMPP @ 5€',
    });
    expect(sent).toMatchObject({
      from: account.phone,
      to,
      content: 'Hello from SMPP @ 5€',
      status: 'queued',
      encoding: 'GSM-7',
    });
  });

  it('sends UCS-2 text (data_coding 8) and Latin-1 (data_coding 3); source_addr with + and empty both work', async () => {
    const ucs = await submitted({
      destination_addr: `+${digits(testNumber())}`,
      data_coding: 8,
      short_message: 'Привет, 世界 👋',
    });
    expect(ucs).toMatchObject({ content: 'Привет, 世界 👋', encoding: 'UCS-2' });
    const latin = await submitted({
      source_addr: account.phone,
      destination_addr: digits(testNumber()),
      data_coding: 3,
      short_message: 'Café à côté',
    });
    expect(latin.content).toBe('Café à côté');
    const fromGroup = await submitted({
      source_addr: '',
      destination_addr: digits(testNumber()),
      short_message: 'from the group',
    });
    expect(fromGroup.from_group).toBe(account.defaultGroupId);
  });

  it('reassembles a message concatenated by UDH, by sar_* TLVs, and takes message_payload', async () => {
    const to = digits(testNumber());
    const udh = (seq: number) => Buffer.from([0x05, 0x00, 0x03, 0x2a, 0x02, seq]);
    const first = await client.request('submit_sm', {
      source_addr: digits(account.phone),
      destination_addr: to,
      data_coding: 0,
      short_message: { udh: udh(1), message: 'The first half, ' },
    });
    const second = await client.request('submit_sm', {
      source_addr: digits(account.phone),
      destination_addr: to,
      data_coding: 0,
      short_message: { udh: udh(2), message: 'and the second.' },
    });
    expect([first.command_status, second.command_status]).toEqual([0, 0]);
    expect(second.message_id).toBe(first.message_id);
    expect((await message(account, String(second.message_id))).content).toBe('The first half, and the second.');

    const sarTo = digits(testNumber());
    const ids: unknown[] = [];
    for (const [seq, text] of [
      [2, 'two'],
      [1, 'one '],
    ] as const) {
      const resp = await client.request('submit_sm', {
        source_addr: digits(account.phone),
        destination_addr: sarTo,
        short_message: text,
        sar_msg_ref_num: 513,
        sar_total_segments: 2,
        sar_segment_seqnum: seq,
      });
      expect(resp.command_status).toBe(0);
      ids.push(resp.message_id);
    }
    expect((await message(account, String(ids[1]))).content).toBe('one two');

    // A 16-bit reference (information element 0x08).
    const wideTo = digits(testNumber());
    const wide: unknown[] = [];
    for (const [seq, text] of [
      [1, 'sixteen '],
      [2, 'bit'],
    ] as const) {
      const resp = await client.request('submit_sm', {
        source_addr: digits(account.phone),
        destination_addr: wideTo,
        data_coding: 8,
        short_message: { udh: Buffer.from([0x06, 0x08, 0x04, 0x12, 0x34, 0x02, seq]), message: text },
      });
      expect(resp.command_status).toBe(0);
      wide.push(resp.message_id);
    }
    expect((await message(account, String(wide[1]))).content).toBe('sixteen bit');

    const long = 'x'.repeat(400);
    const payload = await submitted({ destination_addr: digits(testNumber()), data_coding: 0, message_payload: long });
    expect(payload.content).toBe(long);
  });

  it('maps schedule_delivery_time and validity_period (relative and absolute) to send_at and the TTL', async () => {
    const before = Date.now();
    const scheduled = await submitted({
      destination_addr: digits(testNumber()),
      short_message: 'later',
      schedule_delivery_time: '000000010000000R',
      validity_period: '000000020000000R',
    });
    const sendAt = Date.parse(scheduled.send_at);
    expect(sendAt - before).toBeGreaterThan(3_500_000);
    expect(sendAt - before).toBeLessThan(3_700_000);
    expect(Date.parse(scheduled.expires_at) - sendAt).toBeGreaterThan(3_500_000);
    const inTwoDays = new Date(Date.now() + 2 * 86_400_000);
    const absolute = await submitted({
      destination_addr: digits(testNumber()),
      short_message: 'ttl',
      validity_period: inTwoDays,
    });
    expect(Math.abs(Date.parse(absolute.expires_at) - inTwoDays.getTime())).toBeLessThan(2_000);
  });

  it('answers refusals with their statuses', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ destination_addr: 'not-a-number' }, 'ESME_RINVDSTADR'],
      [{ source_addr: 'ACME', destination_addr: digits(testNumber()) }, 'ESME_RINVSRCADR'],
      [{ source_addr: digits(testNumber()), destination_addr: digits(testNumber()) }, 'ESME_RINVSRCADR'],
      [{ destination_addr: digits(testNumber()), validity_period: '000000000010000R' }, 'ESME_RINVEXPIRY'],
      [{ destination_addr: digits(testNumber()), data_coding: 4, short_message: Buffer.from([1, 2]) }, 'ESME_RINVDCS'],
    ];
    for (const [fields, status] of cases) {
      const resp = await client.request('submit_sm', {
        source_addr: digits(account.phone),
        short_message: 'x',
        ...fields,
      });
      expect(nameOf(resp.command_status), JSON.stringify(fields)).toBe(status);
    }
  });

  it('answers ESME_RTHROTTLED past the window of outstanding submits', async () => {
    const pending = Array.from({ length: 6 }, () =>
      client.request('submit_sm', {
        source_addr: digits(account.phone),
        destination_addr: digits(testNumber()),
        short_message: 'burst',
      }),
    );
    const statuses = (await Promise.all(pending)).map((resp) => nameOf(resp.command_status));
    expect(statuses).toContain('ESME_RTHROTTLED');
    expect(statuses).toContain('ESME_ROK');
  });
});

describe('receipts and inbound messages (deliver_sm)', () => {
  it('sends DELIVRD and UNDELIV receipts to the login that asked, with receipted_message_id and message_state', async () => {
    const account = await createTestAccount(db(), { plan: 'pro', credits: 10 });
    const client = await bound('bind_transceiver', await newLogin(account));
    const outcomes = [
      { statuses: ['sent', 'delivered'], stat: 'DELIVRD', state: 2 },
      { statuses: ['sent', 'failed'], stat: 'UNDELIV', state: 5 },
    ];
    for (const outcome of outcomes) {
      const to = testNumber();
      const resp = await client.request('submit_sm', {
        source_addr: digits(account.phone),
        destination_addr: digits(to),
        short_message: 'Your order shipped',
        registered_delivery: 1,
      });
      expect(resp.command_status).toBe(0);
      const id = String(resp.message_id);
      await phoneReports(account, id, outcome.statuses);
      const receipt = await until(() =>
        client.delivered.find((pdu) => pdu.receipted_message_id === id && pdu.message_state === outcome.state),
      );
      expect(receipt.esm_class).toBe(0x04);
      expect(receipt.source_addr).toBe(digits(to));
      expect(receipt.destination_addr).toBe(digits(account.phone));
      const text = (receipt.short_message as { message: string }).message;
      expect(text).toMatch(
        new RegExp(
          `^id:${id} sub:001 dlvrd:00[01] submit date:\\d{10} done date:\\d{10} stat:${outcome.stat} err:\\d{3} text:Your order shipped$`,
        ),
      );
    }
    // registered_delivery 1 asks for final outcomes only: no ENROUTE for `sent`.
    expect(client.delivered.some((pdu) => pdu.message_state === 1)).toBe(false);
    await until(
      async () =>
        (await db().select().from(smppDeliveries).where(eq(smppDeliveries.accountId, account.accountId))).length === 0,
    );
  });

  it('sends an inbound SMS as a mobile-originated deliver_sm; queued while no receiver is bound, sent when one binds', async () => {
    const account = await createTestAccount(db(), { plan: 'pro' });
    const login = await newLogin(account);
    const sender = testNumber();
    const inbound = await call(received, {
      path: '/api/v1/device/messages/received',
      body: { from: sender, content: 'Привет! Is the shop open?' },
      apiKey: account.deviceKey,
    });
    expect(inbound.status).toBe(201);
    const queued = await db()
      .select()
      .from(smppDeliveries)
      .where(and(eq(smppDeliveries.accountId, account.accountId), eq(smppDeliveries.kind, 'mo')));
    expect(queued).toHaveLength(1);
    const receiver = await bound('bind_receiver', login);
    const mo = await until(() => receiver.delivered.find((pdu) => pdu.source_addr === digits(sender)));
    expect(mo.esm_class).toBe(0);
    expect(mo.destination_addr).toBe(digits(account.phone));
    expect(mo.data_coding).toBe(8);
    expect((mo.short_message as { message: string }).message).toBe('Привет! Is the shop open?');
  });

  it('sends a refused deliver_sm again later, and an unacknowledged one to the next bind', async () => {
    const account = await createTestAccount(db(), { plan: 'pro' });
    const login = await newLogin(account);
    let refuse = true;
    const refusing = await smppClient(server.port, { refuseDeliveries: () => refuse });
    clients.push(refusing);
    expect((await refusing.request('bind_receiver', login)).command_status).toBe(0);
    const sender = testNumber();
    await call(received, {
      path: '/api/v1/device/messages/received',
      body: { from: sender, content: 'retry me' },
      apiKey: account.deviceKey,
    });
    const row = await until(async () => {
      const [r] = await db().select().from(smppDeliveries).where(eq(smppDeliveries.accountId, account.accountId));
      return r && r.attempts >= 1 && r.lockedUntil === null ? r : undefined;
    });
    expect(row.nextAttemptAt.getTime()).toBeGreaterThan(Date.now());
    refuse = false;
    await db()
      .update(smppDeliveries)
      .set({ nextAttemptAt: new Date() })
      .where(eq(smppDeliveries.accountId, account.accountId));
    await until(() => refusing.delivered.find((pdu) => pdu.source_addr === digits(sender)), { timeoutMs: 15_000 });
  });
});

describe('several instances on one database', () => {
  it('counts binds across instances, sends receipts through another instance’s receiver, and revokes on both', async () => {
    const other = await testSmppServer();
    try {
      const account = await createTestAccount(db(), { credits: 10 });
      const login = await newLogin(account);
      const transmitter = await bound('bind_transmitter', login);
      const receiver = await boundClient(other.port, 'bind_receiver', login);
      clients.push(receiver);
      // The free plan's 2 binds are taken, one on each instance.
      const third = await smppClient(other.port);
      expect(nameOf((await third.request('bind_transceiver', login)).command_status)).toBe('ESME_RBINDFAIL');
      const to = testNumber();
      const resp = await transmitter.request('submit_sm', {
        source_addr: digits(account.phone),
        destination_addr: digits(to),
        short_message: 'across instances',
        registered_delivery: 1,
      });
      expect(resp.command_status).toBe(0);
      await phoneReports(account, String(resp.message_id), ['sent', 'delivered']);
      await until(() => receiver.delivered.find((pdu) => pdu.receipted_message_id === resp.message_id));
      const res = await call(revoke, {
        method: 'DELETE',
        path: `/api/v1/smpp/credentials/${login.system_id}`,
        params: { system_id: login.system_id },
        apiKey: account.apiKey,
      });
      expect(res.status).toBe(204);
      await until(() => transmitter.closed() && receiver.closed());
    } finally {
      await other.close();
    }
  });
});

describe('SMPP over TLS, and the metrics', () => {
  it('binds over TLS on its own listener', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'simgate-smpp-tls-'));
    const [key, cert] = [path.join(dir, 'key.pem'), path.join(dir, 'cert.pem')];
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
      ],
      { stdio: 'ignore' },
    );
    const tlsServer = await startSmppServer({
      listeners: [{ port: 0, tls: { cert: fs.readFileSync(cert), key: fs.readFileSync(key) } }],
    });
    try {
      const account = await createTestAccount(db());
      const login = await newLogin(account);
      const session = connect({ host: '127.0.0.1', port: tlsServer.ports[0], tls: true, rejectUnauthorized: false });
      session.on('error', () => undefined);
      const resp = await new Promise<{ command_status: number }>((resolve) =>
        session.bind_transceiver(login, (pdu) => resolve(pdu)),
      );
      expect(resp.command_status).toBe(0);
      expect(session.socket.constructor.name).toBe('TLSSocket');
      session.destroy();
    } finally {
      await tlsServer.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('listens on SMPP_PORT in the process that starts it, and nowhere without it', async () => {
    const port = await freePort();
    const stopNone = await startSmpp();
    await expect(smppClient(port)).rejects.toThrow();
    await stopNone();
    process.env.SMPP_PORT = String(port);
    try {
      const stop = await startSmpp();
      const account = await createTestAccount(db());
      const client = await boundClient(port, 'bind_transceiver', await newLogin(account));
      await client.close();
      await stop();
    } finally {
      delete process.env.SMPP_PORT;
    }
  });

  it('counts binds and answered PDUs by command and status', async () => {
    const text = await registry.metrics();
    expect(text).toMatch(/simgate_smpp_pdus_total\{command="submit_sm",status="ESME_ROK"\} [1-9]/);
    expect(text).toMatch(/simgate_smpp_pdus_total\{command="bind_transceiver",status="ESME_RINVPASWD"\} [1-9]/);
    expect(text).toMatch(/simgate_smpp_pdus_total\{command="deliver_sm_resp",status="ESME_ROK"\} [1-9]/);
    expect(text).toMatch(/simgate_smpp_binds\{kind="transceiver"\} [0-9]/);
  });

  it('refuses binds from an address past its failed binds, before checking any password', async () => {
    await db().delete(rateLimitHits);
    const strict = await startSmppServer({ listeners: [{ port: 0 }], limits: { bindFailuresPerAddress: 2 } });
    try {
      const account = await createTestAccount(db());
      const login = await newLogin(account);
      for (const password of ['guess-1', 'guess-2']) {
        const client = await smppClient(strict.ports[0]!);
        const resp = await client.request('bind_transmitter', { system_id: login.system_id, password });
        expect(nameOf(resp.command_status)).toBe('ESME_RINVPASWD');
        await client.close();
      }
      const client = await smppClient(strict.ports[0]!);
      const resp = await client.request('bind_transmitter', login);
      expect(nameOf(resp.command_status)).toBe('ESME_RBINDFAIL');
      await client.close();
    } finally {
      await strict.close();
      await db().delete(rateLimitHits);
    }
  });
});
