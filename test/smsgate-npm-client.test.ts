import Client, { type HttpClient, ProcessState, WebHookEventType } from 'android-sms-gateway';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import * as deviceRoute from '@/app/api/3rdparty/v1/devices/[id]/route';
import * as devicesRoute from '@/app/api/3rdparty/v1/devices/route';
import * as healthRoute from '@/app/api/3rdparty/v1/health/route';
import * as messageRoute from '@/app/api/3rdparty/v1/message/[id]/route';
import * as messageAlias from '@/app/api/3rdparty/v1/message/route';
import * as settingsRoute from '@/app/api/3rdparty/v1/settings/route';
import * as webhookRoute from '@/app/api/3rdparty/v1/webhooks/[id]/route';
import * as webhooksRoute from '@/app/api/3rdparty/v1/webhooks/route';
import { POST as reportStatus } from '@/app/api/v1/device/messages/[id]/status/route';
import { POST as claim } from '@/app/api/v1/device/outbox/claim/route';
import { messages } from '@/db/schema';
import type { RouteHandler } from '@/lib/http/route';
import { markBackground, markStarted, resetStartForTests } from '@/lib/runtime/lifecycle';
import { addTestPhone, createTestAccount, type TestAccount, testNumber } from './fixtures';
import { call } from './http';
import { withTestDatabase } from './setup-db';

const { db } = withTestDatabase();

const BASE = 'http://localhost:3000/api/3rdparty/v1';

/** The surface's routes by path, as Next would match them: the client's requests are served in-process. */
const ROUTES: Array<[RegExp, Record<string, RouteHandler>]> = [
  [/^\/health$/, healthRoute],
  [/^\/message$/, messageAlias],
  [/^\/message\/(?<id>[^/]+)$/, messageRoute],
  [/^\/devices$/, devicesRoute],
  [/^\/devices\/(?<id>[^/]+)$/, deviceRoute],
  [/^\/webhooks$/, webhooksRoute],
  [/^\/webhooks\/(?<id>[^/]+)$/, webhookRoute],
  [/^\/settings$/, settingsRoute],
];

/**
 * The HttpClient the package requires, injected as its README shows (fetch-like: JSON in, JSON
 * out, an error thrown for a non-2xx answer), calling Simgate's route handlers.
 */
function inProcessClient(): HttpClient {
  const request = async (method: string, url: string, body: unknown, headers: Record<string, string> = {}) => {
    const parsed = new URL(url);
    const pathname = parsed.pathname.replace('/api/3rdparty/v1', '');
    for (const [pattern, module] of ROUTES) {
      const match = pattern.exec(pathname);
      const handler = match && module[method];
      if (!handler) continue;
      const res = await call(handler, {
        method,
        path: `${parsed.pathname}${parsed.search}`,
        headers,
        params: { ...match.groups },
        ...(body === undefined ? {} : { body }),
      });
      if (res.status >= 400) throw new Error(`${method} ${pathname} answered ${res.status}: ${res.text}`);
      return res.text ? res.body : undefined;
    }
    throw new Error(`no route for ${method} ${pathname}`);
  };
  return {
    get: (url, headers) => request('GET', url, undefined, headers),
    post: (url, body, headers) => request('POST', url, body, headers),
    put: (url, body, headers) => request('PUT', url, body, headers),
    patch: (url, body, headers) => request('PATCH', url, body, headers),
    delete: (url, headers) => request('DELETE', url, undefined, headers),
  };
}

function clientOf(account: TestAccount): Client {
  return new Client('my-login', account.apiKey, inProcessClient(), BASE);
}

async function phoneReports(account: TestAccount, status: 'sent' | 'delivered', ids: string[]) {
  if (status === 'sent') await call(claim, { body: {}, apiKey: account.deviceKey });
  for (const id of ids) await call(reportStatus, { params: { id }, body: { status }, apiKey: account.deviceKey });
}

describe('the official npm client (android-sms-gateway 3.0.0), unchanged', () => {
  it('sends to one and to two numbers and reads the states the simulator reports', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const api = clientOf(account);
    const to = testNumber();
    const one = await api.send(
      { phoneNumbers: [to], message: 'Secure OTP: 123456 🔐' },
      { skipPhoneValidation: false },
    );
    expect(one).toMatchObject({
      id: expect.any(String),
      state: ProcessState.Pending,
      recipients: [{ phoneNumber: to }],
    });
    const [row] = await db().select().from(messages).where(eq(messages.accountId, account.accountId));
    await phoneReports(account, 'sent', [row!.id]);
    expect((await api.getState(one.id)).state).toBe(ProcessState.Sent);
    await phoneReports(account, 'delivered', [row!.id]);
    expect(await api.getState(one.id)).toMatchObject({
      state: ProcessState.Delivered,
      recipients: [{ phoneNumber: to, state: ProcessState.Delivered }],
    });

    const two = await api.send({
      id: 'batch-7',
      phoneNumbers: [testNumber(), testNumber()],
      message: 'Hi all',
      withDeliveryReport: true,
    });
    expect(two.id).toBe('batch-7');
    expect(two.recipients).toHaveLength(2);
    expect((await api.getState('batch-7')).state).toBe(ProcessState.Pending);
  });

  it('lists and removes devices, and reads health', async () => {
    const account = await createTestAccount(db());
    const second = await addTestPhone(db(), account);
    const api = clientOf(account);
    expect((await api.getDevices()).map((device) => device.id)).toEqual([account.phoneId, second.phoneId]);
    await api.deleteDevice(second.phoneId);
    expect((await api.getDevices()).map((device) => device.id)).toEqual([account.phoneId]);
    // What lib/server/start.ts records once the app has started (test/api/health.test.ts has the rest).
    markStarted();
    markBackground('running');
    try {
      expect((await api.getHealth()).status).toBe('pass');
    } finally {
      resetStartForTests();
    }
  });

  it('registers, lists and deletes a webhook, and reads and patches settings', async () => {
    const account = await createTestAccount(db());
    const api = clientOf(account);
    const hook = await api.registerWebhook({
      url: 'https://hooks.example.test/sms',
      event: WebHookEventType.SmsReceived,
    });
    expect(hook).toMatchObject({
      id: expect.any(String),
      url: 'https://hooks.example.test/sms',
      event: 'sms:received',
    });
    expect((await api.getWebhooks()).map((webhook) => webhook.id)).toEqual([hook.id]);
    await api.deleteWebhook(String(hook.id));
    expect(await api.getWebhooks()).toEqual([]);
    const settings = await api.getSettings();
    expect(settings.webhooks?.signingKey ?? (settings.webhooks as Record<string, unknown>)?.signing_key).toEqual(
      expect.any(String),
    );
    await api.patchSettings({ ping: { intervalSeconds: 120 } });
    expect((await api.getSettings()).ping).toEqual({ intervalSeconds: 120 });
  });
});
