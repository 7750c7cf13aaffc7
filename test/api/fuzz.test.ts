import { beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '@/app/route-index';
import type { RouteHandler } from '@/lib/http/route';
import { sendBulk } from '@/lib/messages/bulk';
import { sendMessage } from '@/lib/messages/send';
import { openApiDocument } from '@/lib/openapi/document';
import { createAuthToken } from '@/lib/protocols/twilio/credentials';
import { messageSidOf } from '@/lib/protocols/twilio/ids';
import { queueTestEvent } from '@/lib/webhooks/deliveries';
import { createWebhook } from '@/lib/webhooks/manage';
import { createTestAccount, type TestAccount } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

type Operation = {
  responses: Record<string, unknown>;
  security?: Array<Record<string, unknown>>;
  requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> };
};

const routeModules = import.meta.glob<Record<string, RouteHandler>>(
  [
    '/app/api/v1/**/route.ts',
    '/app/api/mobile/v1/**/route.ts',
    '/app/api/3rdparty/v1/**/route.ts',
    '/app/api/health/**/route.ts',
    '/app/api/dev/**/route.ts',
    '/app/2010-04-01/**/route.ts',
    '/app/.well-known/**/route.ts',
  ],
  { eager: true },
);

/** Values no field of this API accepts in that position: wrong types, edges and injections. */
const HOSTILE: unknown[] = [
  null,
  true,
  -1,
  0.5,
  1e308,
  Number.MAX_SAFE_INTEGER,
  '',
  ' ',
  'x'.repeat(20_000),
  '\u0000',
  "' OR 1=1 --",
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '+',
  '+99999999999999999999',
  '2026-13-45T99:99:99Z',
  '😀'.repeat(2_000),
  [],
  [null],
  Array.from({ length: 2_000 }, (_, i) => `+1415555${String(i).padStart(4, '0')}`),
  {},
  { $gt: '' },
  { a: { b: { c: { d: [1, { e: null }] } } } },
];
const HOSTILE_PARAMS = ['not-a-uuid', '-1', '0', '99999999999999999999', '1e3', '%00', '..', 'Default', ' '];
const HOSTILE_QUERIES = [
  '?limit=0',
  '?limit=abc',
  '?cursor=%%%',
  '?cursor=eyJ4Ijp9',
  '?status=__proto__',
  '?wait=-1',
  '?wait=abc',
];

/** Hostile values as a form body: each field's value as text, an array's items as repeated fields. */
function formOf(fields: Record<string, unknown>): string {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    for (const one of Array.isArray(value) ? value.slice(0, 50) : [value]) {
      form.append(name, typeof one === 'object' ? JSON.stringify(one) : String(one));
    }
  }
  return form.toString();
}

/** A small seeded generator, so a failure names a case that can be run again. */
function rng(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

let account: TestAccount;
/** Real ids of the account's resources, so half the rounds get past the path and test the body. */
let realIds: Record<string, string>;
/** HTTP Basic with the account's Twilio credentials, for the Twilio-compatible API. */
let twilioBasic: string;
beforeAll(async () => {
  account = await createTestAccount(db(), { plan: 'pro' });
  const message = await sendMessage(db(), account.accountId, {
    origin: 'api',
    from: account.phone,
    to: '+14155550123',
    content: 'x',
  });
  const bulk = await sendBulk(db(), account.accountId, {
    origin: 'api',
    from: account.phone,
    recipients: ['+14155550124'],
    content: 'x',
  });
  const webhook = await createWebhook(db(), account.accountId, {
    url: 'https://hooks.example.test/fuzz',
    events: ['message.sent'],
  });
  const delivery = await queueTestEvent(db(), account.accountId, webhook.id);
  const twilio = await createAuthToken(db(), account.accountId);
  twilioBasic = `Basic ${Buffer.from(`${twilio.account_sid}:${twilio.auth_token}`).toString('base64')}`;
  realIds = {
    '/Accounts/{accountSid}/': twilio.account_sid,
    '/Accounts/{accountSid}': `${twilio.account_sid}.json`,
    '/Messages/{messageSid}': `${messageSidOf(message.id)}.json`,
    '/phones/': account.phoneId,
    '/phone-groups/': String(account.defaultGroupId),
    '/messages/': message.id,
    '/bulk-messages/': bulk.id,
    '/webhooks/': webhook.id,
    delivery_id: delivery.id,
    '/auth/api-keys/': account.apiKeyId,
  };
});

function realParam(path: string, name: string): string | undefined {
  if (name === 'delivery_id') return realIds.delivery_id;
  if (name === 'accountSid')
    return path.endsWith('{accountSid}') ? realIds['/Accounts/{accountSid}'] : realIds['/Accounts/{accountSid}/'];
  if (name === 'messageSid') return realIds['/Messages/{messageSid}'];
  return Object.entries(realIds).find(([prefix]) => path.includes(`${prefix}{${name}}`))?.[1];
}

const doc = openApiDocument(ROUTES) as { paths: Record<string, Record<string, Operation>> };
const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
);

function handlerOf(path: string, method: string): RouteHandler | undefined {
  const file = `/app${path.replace(/\{([^}]+)\}/g, '[$1]')}/route.ts`;
  return routeModules[file]?.[method];
}

describe('fuzzing every documented operation', () => {
  it('covers every route file', () => {
    expect(operations.length).toBeGreaterThan(30);
    for (const { path, method } of operations) expect(handlerOf(path, method), `${method} ${path}`).toBeDefined();
  });

  for (const { path, method, op } of operations) {
    it(`${method} ${path} never answers 5xx or a non-JSON error`, async () => {
      const handler = handlerOf(path, method)!;
      const deviceOnly = op.security?.length === 1 && ('DeviceKey' in op.security[0]! || 'AppToken' in op.security[0]!);
      // The app's event stream never ends: it is fuzzed with the wrong kind of key, which answers at once.
      const stream = path.endsWith('/events');
      const apiKey = deviceOnly && !stream ? account.deviceKey : account.apiKey;
      // The SMSGate surfaces (the app's, the integrator's) answer errors as plain JSON, what their clients decode.
      const smsgate = path.startsWith('/api/mobile/') || path.startsWith('/api/3rdparty/');
      // The Twilio-compatible API: form bodies, Basic with the Twilio credentials, Twilio's error body.
      const twilio = path.startsWith('/2010-04-01/');
      const errorType = smsgate || twilio ? 'application/json' : 'application/problem+json';
      // The integrator's surface takes the key as a Basic password.
      const integrator = path.startsWith('/api/3rdparty/');
      // What the reference answers 501 for (a feature it has off) is documented so, and answers so here.
      const notImplemented = Boolean(op.responses['501']);
      // The health probes answer 503 while the instance is not ready (lib/runtime/health.ts).
      const probe = /\/health(\/(live|ready|startup))?$/.test(path);
      const bodyType = twilio ? 'application/x-www-form-urlencoded' : 'application/json';
      const fields = Object.keys(op.requestBody?.content[bodyType]?.schema.properties ?? {});
      const paramNames = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
      const random = rng(path.length * 7919 + method.length);
      const pick = <T>(values: T[]): T => values[Math.floor(random() * values.length)]!;
      const hasBody = method !== 'GET' && method !== 'DELETE';

      for (let round = 0; round < 12; round++) {
        // Deletes keep hostile ids: the fuzzer must not delete its own phone, webhook or key.
        const useReal = round % 2 === 1 && method !== 'DELETE';
        const params = Object.fromEntries(
          paramNames.map((name) => [name, (useReal && realParam(path, name)) || pick(HOSTILE_PARAMS)]),
        );
        const query = round % 3 === 0 ? pick(HOSTILE_QUERIES) : '';
        const body = round === 0 ? pick(HOSTILE) : Object.fromEntries(fields.map((f) => [f, pick(HOSTILE)]));
        const sent = twilio && hasBody && round > 0 ? { rawBody: formOf(body as Record<string, unknown>) } : { body };
        const res = await call(handler, {
          method,
          params,
          path: `/x${query}`,
          ...(integrator
            ? { headers: { authorization: `Basic ${Buffer.from(`fuzz:${account.apiKey}`).toString('base64')}` } }
            : twilio
              ? { headers: { authorization: twilioBasic, 'content-type': 'application/x-www-form-urlencoded' } }
              : { apiKey }),
          ...(hasBody ? sent : {}),
        });
        const context = `${method} ${path} round ${round}: ${res.status} ${res.text.slice(0, 200)}`;
        if (probe && res.status === 503) {
          // A probe of an instance that has not started (no server start here): its documented
          // "not ready", naming the failing checks. Never a 500.
          expect(res.contentType, context).toBe(errorType);
          if (smsgate) expect(res.body, context).toMatchObject({ status: 'fail', checks: expect.any(Object) });
          else expect(res.body, context).toMatchObject({ code: 'SERVICE_UNAVAILABLE', checks: expect.any(Object) });
          continue;
        }
        if (notImplemented) expect([401, 501], context).toContain(res.status);
        else expect(res.status, context).toBeLessThan(500);
        if (res.status >= 400) {
          expect(res.contentType, context).toBe(errorType);
          if (twilio) expect(res.body.code, context).toEqual(expect.any(Number));
          else expect(res.body.code, context).toMatch(/^[A-Z_]+$/);
        }
      }
    });
  }
});
