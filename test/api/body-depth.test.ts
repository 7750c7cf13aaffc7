import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import * as settingsRoute from '@/app/api/3rdparty/v1/settings/route';
import { POST as callbackRoute } from '@/app/api/mobile/v1/callback/[deviceId]/route';
import { PATCH as patchAppMessages } from '@/app/api/mobile/v1/message/route';
import { POST as send } from '@/app/api/v1/messages/route';
import { phones } from '@/db/schema';
import { MAX_JSON_DEPTH } from '@/lib/http/parse';
import { createTestAccount, type TestAccount } from '../fixtures';
import { type CallOptions, call } from '../http';
import { withTestDatabase } from '../setup-db';
import { bearer, type PairedApp, pairApp } from '../smsgate-app';

const { db } = withTestDatabase();

/** `{"a":{"a":…{"a":1}…}}`, `levels` objects deep. */
function nested(levels: number): string {
  return `${'{"a":'.repeat(levels - 1)}{"a":1}${'}'.repeat(levels - 1)}`;
}

const json = { 'content-type': 'application/json' };

const basic = (key: string) => ({ authorization: `Basic ${Buffer.from(`anyone:${key}`).toString('base64')}` });

function asIntegrator(account: TestAccount, handler: Parameters<typeof call>[0], options: CallOptions = {}) {
  return call(handler, { ...options, headers: { ...basic(account.apiKey), ...options.headers } });
}

describe('JSON bodies nested too deep', () => {
  let account: TestAccount;
  let app: PairedApp;
  beforeAll(async () => {
    account = await createTestAccount(db());
    app = await pairApp(await createTestAccount(db()));
  });

  it('PUT /3rdparty/v1/settings 3,000 levels deep answers 400 on body, and GET still answers 200', async () => {
    const deep = `{"ping":${nested(3000)}}`;
    for (const [method, handler] of [
      ['PUT', settingsRoute.PUT],
      ['PATCH', settingsRoute.PATCH],
    ] as const) {
      const res = await asIntegrator(account, handler, { method, rawBody: deep, headers: json });
      expect(res.status, res.text).toBe(400);
      expect(res.contentType).toContain('application/json');
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(res.body.message).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
      expect(res.body.errors).toEqual([{ path: 'body', message: `nested deeper than ${MAX_JSON_DEPTH} levels` }]);
    }
    const read = await asIntegrator(account, settingsRoute.GET);
    expect(read.status, read.text).toBe(200);
    expect(read.body.ping).toBeUndefined();
  });

  it('takes a document exactly at the bound, and brackets inside strings do not count', async () => {
    // The body's own object is level 1: `ping` holds MAX_JSON_DEPTH - 1 more.
    const atBound = `{"ping":${nested(MAX_JSON_DEPTH - 1)},"logs":{"note":"${'[{'.repeat(100)}"}}`;
    const res = await asIntegrator(account, settingsRoute.PUT, { method: 'PUT', rawBody: atBound, headers: json });
    expect(res.status, res.text).toBe(200);
    const over = `{"ping":${nested(MAX_JSON_DEPTH)}}`;
    const refused = await asIntegrator(account, settingsRoute.PUT, { method: 'PUT', rawBody: over, headers: json });
    expect(refused.status).toBe(400);
    expect((await asIntegrator(account, settingsRoute.GET)).status).toBe(200);
  });

  it('answers problem+json 400 on an /api/v1 route', async () => {
    const res = await call(send, { rawBody: `[${nested(3000)}]`, headers: json, apiKey: account.apiKey });
    expect(res.status).toBe(400);
    expect(res.contentType).toContain('application/problem+json');
    expect(res.body.errors).toEqual([{ path: 'body', message: `nested deeper than ${MAX_JSON_DEPTH} levels` }]);
  });

  it('answers 400 on the app’s routes, the raw-bodied callback included', async () => {
    const patch = await call(patchAppMessages, {
      method: 'PATCH',
      rawBody: `[${'['.repeat(3000)}${']'.repeat(3000)}]`,
      headers: { ...json, ...bearer(app) },
    });
    expect(patch.status).toBe(400);
    expect(patch.body.code).toBe('VALIDATION_ERROR');
    const callback = await call(callbackRoute, {
      rawBody: nested(3000),
      headers: json,
      params: { deviceId: app.deviceId },
    });
    expect(callback.status).toBe(400);
    expect(callback.body.errors).toEqual([{ path: 'body', message: `nested deeper than ${MAX_JSON_DEPTH} levels` }]);
  });
});

describe('/3rdparty/v1/settings pacing, bounded as /api/v1 bounds it', () => {
  it('answers 400 naming messages.limit_value past 60 a minute, and stores nothing', async () => {
    const account = await createTestAccount(db());
    const res = await asIntegrator(account, settingsRoute.PUT, {
      method: 'PUT',
      body: { messages: { limit_period: 'PerMinute', limit_value: 100000 } },
    });
    expect(res.status, res.text).toBe(400);
    expect(res.body.errors).toEqual([{ path: 'messages.limit_value', message: expect.any(String) }]);
    expect(res.body.message).toContain('messages.limit_value');
    const [phone] = await db().select().from(phones).where(eq(phones.id, account.phoneId));
    expect(phone!.messagesPerMinute).toBeLessThanOrEqual(60);
    expect((await asIntegrator(account, settingsRoute.GET)).body.messages).toBeUndefined();
  });

  it('checks the merged document: a PATCH of limit_value alone is bounded by the stored period', async () => {
    const account = await createTestAccount(db());
    const ok = await asIntegrator(account, settingsRoute.PATCH, {
      method: 'PATCH',
      body: { messages: { limit_period: 'PerMinute', limit_value: 60 } },
    });
    expect(ok.status, ok.text).toBe(200);
    const over = await asIntegrator(account, settingsRoute.PATCH, {
      method: 'PATCH',
      body: { messages: { limit_value: 61 } },
    });
    expect(over.status).toBe(400);
    expect(over.body.errors[0].path).toBe('messages.limit_value');
    const perDay = await asIntegrator(account, settingsRoute.PATCH, {
      method: 'PATCH',
      body: { messages: { limit_period: 'PerDay', limit_value: 100000 } },
    });
    expect(perDay.status, perDay.text).toBe(200);
    const [phone] = await db().select().from(phones).where(eq(phones.id, account.phoneId));
    expect(phone).toMatchObject({ messagesPerMinute: 60, dailyCap: 100000 });
  });
});
