import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POST as reportStatus } from '@/app/api/v1/device/messages/[id]/status/route';
import { POST as received } from '@/app/api/v1/device/messages/received/route';
import { POST as claim } from '@/app/api/v1/device/outbox/claim/route';
import { POST as createLogin } from '@/app/api/v1/smpp/credentials/route';
import { messages } from '@/db/schema';
import { freePort } from '@/scripts/free-port';
import { createTestAccount, type TestAccount, testNumber } from './fixtures';
import { call } from './http';
import { until } from './poll';
import { withTestDatabase } from './setup-db';
import { testSmppServer } from './smpp-client';

/**
 * Debian's Kannel as the SMPP client of docs/smpp.md's setup: bearerbox binds to Simgate's SMPP
 * port as a transceiver, smsbox's sendsms interface submits, its dlr-url receives the receipts and
 * its sms-service the inbound messages. Runs where kannel is installed (`.ci/run` installs it).
 */

const BEARERBOX = '/usr/sbin/bearerbox';
const SMSBOX = '/usr/sbin/smsbox';
const installed = fs.existsSync(BEARERBOX) && fs.existsSync(SMSBOX);

const { db } = withTestDatabase();

type Hit = { path: string; query: URLSearchParams };

/** Whether a TCP connection to the port on 127.0.0.1 is accepted. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe.skipIf(!installed)('Kannel (bearerbox + smsbox) against the SMPP server', { timeout: 150_000 }, () => {
  let server: Awaited<ReturnType<typeof testSmppServer>>;
  let receiver: http.Server;
  const hits: Hit[] = [];
  const boxes: ChildProcess[] = [];
  let dir: string;
  let sendsmsPort: number;
  let account: TestAccount;

  beforeAll(async () => {
    account = await createTestAccount(db(), { credits: 20 });
    const login = await call(createLogin, { body: { system_id: 'kannel-e2e' }, apiKey: account.apiKey });
    expect(login.status, login.text).toBe(201);
    server = await testSmppServer();
    receiver = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      hits.push({ path: url.pathname, query: url.searchParams });
      res.end('');
    });
    const receiverPort = await freePort();
    await new Promise<void>((resolve) => receiver.listen(receiverPort, '127.0.0.1', resolve));
    const [adminPort, smsboxPort] = [await freePort(), await freePort()];
    sendsmsPort = await freePort();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'simgate-kannel-'));
    const conf = path.join(dir, 'kannel.conf');
    fs.writeFileSync(
      conf,
      `group = core
admin-port = ${adminPort}
admin-password = e2e-admin
smsbox-port = ${smsboxPort}
admin-interface = 127.0.0.1
box-allow-ip = 127.0.0.1
log-file = "${dir}/bearerbox.log"
log-level = 0
dlr-storage = internal

group = smsc
smsc = smpp
smsc-id = simgate
host = 127.0.0.1
port = ${server.port}
transceiver-mode = true
smsc-username = kannel-e2e
smsc-password = ${login.body.password}
system-type = ""
source-addr-ton = 1
source-addr-npi = 1
dest-addr-ton = 1
dest-addr-npi = 1
enquire-link-interval = 30
reconnect-delay = 1

group = smsbox
bearerbox-host = 127.0.0.1
sendsms-port = ${sendsmsPort}
sendsms-interface = 127.0.0.1
log-file = "${dir}/smsbox.log"
log-level = 0

group = sendsms-user
username = e2e
password = e2e-pass
max-messages = 10
concatenation = true

group = sms-service
keyword = default
catch-all = true
max-messages = 0
get-url = "http://127.0.0.1:${receiverPort}/mo?from=%p&to=%P&text=%a"
`,
    );
    // smsbox gives up at once when bearerbox is not listening yet: start it once bearerbox has bound and
    // its box port answers.
    boxes.push(spawn(BEARERBOX, [conf], { cwd: dir, stdio: 'ignore' }));
    await until(() => server.binds() >= 1, { timeoutMs: 60_000, intervalMs: 100 });
    await until(() => accepts(smsboxPort), { timeoutMs: 60_000, intervalMs: 100 });
    boxes.push(spawn(SMSBOX, [conf], { cwd: dir, stdio: 'ignore' }));
    await until(
      async () => {
        try {
          await fetch(`http://127.0.0.1:${sendsmsPort}/`);
          return true;
        } catch {
          return false;
        }
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    // Room for a loaded machine: Kannel binds and opens sendsms within seconds when quiet.
  }, 150_000);

  afterAll(async () => {
    for (const child of boxes) child.kill('SIGTERM');
    await Promise.all(
      boxes.map((child) => (child.exitCode === null ? new Promise((resolve) => child.once('exit', resolve)) : null)),
    );
    await server?.close();
    await new Promise((resolve) => receiver?.close(resolve));
    if (dir && !process.env.KEEP_KANNEL) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('sends through sendsms and reports DELIVRD to the dlr-url', async () => {
    const to = testNumber();
    const dlrUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/dlr?status=%d&id=first`;
    const query = new URLSearchParams({
      username: 'e2e',
      password: 'e2e-pass',
      from: account.phone.slice(1),
      to: to.slice(1),
      text: 'Hello from Kannel',
      'dlr-mask': '3',
      'dlr-url': dlrUrl,
    });
    const res = await fetch(`http://127.0.0.1:${sendsmsPort}/cgi-bin/sendsms?${query}`);
    expect(res.status, await res.text()).toBe(202);
    const message = await until(
      async () =>
        (
          await db()
            .select()
            .from(messages)
            .where(and(eq(messages.accountId, account.accountId), eq(messages.to, to)))
        )[0],
      { timeoutMs: 60_000 },
    );
    expect(message).toMatchObject({ from: account.phone, content: 'Hello from Kannel' });
    const claimed = await call(claim, { body: {}, apiKey: account.deviceKey });
    expect(claimed.body.data.map((m: { id: string }) => m.id)).toContain(message.id);
    for (const status of ['sent', 'delivered']) {
      const reported = await call(reportStatus, {
        params: { id: message.id },
        body: { status },
        apiKey: account.deviceKey,
      });
      expect(reported.status).toBe(200);
    }
    const dlr = await until(() => hits.find((hit) => hit.path === '/dlr' && hit.query.get('status') === '1'), {
      timeoutMs: 60_000,
    });
    expect(dlr.query.get('id')).toBe('first');
  });

  it('hands an inbound SMS to the sms-service', async () => {
    const sender = testNumber();
    const inbound = await call(received, {
      body: { from: sender, content: 'Reply from the field' },
      apiKey: account.deviceKey,
    });
    expect(inbound.status).toBe(201);
    const mo = await until(
      () => hits.find((hit) => hit.path === '/mo' && hit.query.get('from')?.endsWith(sender.slice(1))),
      {
        timeoutMs: 60_000,
      },
    );
    expect(mo.query.get('text')).toBe('Reply from the field');
    expect(mo.query.get('to')).toContain(account.phone.slice(1));
  });
});
