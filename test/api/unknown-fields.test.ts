import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import * as twilioMessage from '@/app/2010-04-01/Accounts/[accountSid]/Messages/[messageSid]/route';
import * as twilioMessages from '@/app/2010-04-01/Accounts/[accountSid]/Messages.json/route';
import { GET as listMessages, POST as send } from '@/app/api/v1/messages/route';
import { ROUTES } from '@/app/route-index';
import { creditLedger, messages, phoneGroups } from '@/db/schema';
import type { RouteHandler } from '@/lib/http/route';
import { openApiDocument } from '@/lib/openapi/document';
import { createAuthToken } from '@/lib/protocols/twilio/credentials';
import { sharedTestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

const { account } = sharedTestAccount(db);

type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  allOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
};
type Operation = {
  security?: Array<Record<string, unknown>>;
  parameters?: Array<{ name: string; in: string; schema?: JsonSchema }>;
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
};

const routeModules = import.meta.glob<Record<string, RouteHandler>>('/app/api/v1/**/route.ts', { eager: true });

const doc = openApiDocument(ROUTES) as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, JsonSchema> };
};
const bodyOperations = Object.entries(doc.paths)
  .filter(([path]) => path.startsWith('/api/v1/'))
  .flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([, op]) => op.requestBody?.content['application/json'])
      .map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
  );

function handlerOf(path: string, method: string): RouteHandler {
  const handler = routeModules[`/app${path.replace(/\{([^}]+)\}/g, '[$1]')}/route.ts`]?.[method];
  if (!handler) throw new Error(`no handler for ${method} ${path}`);
  return handler;
}

/** Path values of the right form, so that the path passes validation and the body is what is judged. */
function validParams(op: Operation): Record<string, string> {
  const inPath = (op.parameters ?? []).filter((p) => p.in === 'path');
  return Object.fromEntries(
    inPath.map((p) => [p.name, p.schema?.type === 'integer' ? '1' : '00000000-0000-4000-8000-000000000000']),
  );
}

function resolve(schema: JsonSchema): JsonSchema {
  if (!schema.$ref) return schema;
  const resolved = doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')];
  if (!resolved) throw new Error(`unresolved ${schema.$ref}`);
  return resolved;
}

/** Paths of every object (with named properties) in a schema that would take fields it does not name. */
function openObjects(schema: JsonSchema, at: string, seen = new Set<JsonSchema>()): string[] {
  const resolved = resolve(schema);
  if (seen.has(resolved)) return [];
  seen.add(resolved);
  const open: string[] = [];
  if (resolved.properties && resolved.additionalProperties !== false) open.push(at);
  for (const [name, property] of Object.entries(resolved.properties ?? {})) {
    open.push(...openObjects(property, `${at}.${name}`, seen));
  }
  if (resolved.items) open.push(...openObjects(resolved.items, `${at}[]`, seen));
  for (const part of [...(resolved.allOf ?? []), ...(resolved.anyOf ?? []), ...(resolved.oneOf ?? [])]) {
    open.push(...openObjects(part, at, seen));
  }
  return open;
}

describe('unknown fields in an /api/v1 body', () => {
  it('every operation that takes a body is covered', () => {
    expect(bodyOperations.length).toBeGreaterThanOrEqual(20);
  });

  it.each(bodyOperations)(
    '$method $path answers 400 VALIDATION_ERROR naming an unknown field',
    async ({ path, method, op }) => {
      const deviceOnly = op.security?.length === 1 && 'DeviceKey' in op.security[0]!;
      const res = await call(handlerOf(path, method), {
        method,
        path,
        params: validParams(op),
        apiKey: deviceOnly ? account.deviceKey : account.apiKey,
        body: { unexpected_field: 1 },
      });
      expect(res.status, res.text).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(res.body.errors).toContainEqual({ path: 'unexpected_field', message: 'unknown field' });
      expect(res.body.detail).toContain('Unknown field "unexpected_field".');
    },
  );

  it.each(bodyOperations)(
    '$method $path documents its body, nested objects too, as additionalProperties: false',
    ({ op }) => {
      expect(openObjects(op.requestBody!.content['application/json']!.schema, 'body')).toEqual([]);
    },
  );
});

describe('POST /api/v1/messages with a field it does not take', () => {
  async function balance(): Promise<number> {
    const [group] = await db()
      .select({ balance: phoneGroups.balance })
      .from(phoneGroups)
      .where(eq(phoneGroups.id, account.defaultGroupId));
    return group!.balance;
  }
  async function counts() {
    const sent = await db().select({ id: messages.id }).from(messages).where(eq(messages.accountId, account.accountId));
    const ledger = await db()
      .select({ id: creditLedger.id })
      .from(creditLedger)
      .where(eq(creditLedger.accountId, account.accountId));
    return { messages: sent.length, ledger: ledger.length, balance: await balance() };
  }

  it.each([
    { field: 'shoe_size', value: 2 },
    { field: 'ttl', value: 60 },
  ])('answers 400 naming `$field`, creates nothing and charges nothing', async ({ field, value }) => {
    const before = await counts();
    const res = await call(send, {
      body: { from: account.phone, to: testNumber(), content: 'Hello', [field]: value },
      apiKey: account.apiKey,
    });
    expect(res.status).toBe(400);
    expect(res.contentType).toBe('application/problem+json');
    expect(res.body).toMatchObject({
      code: 'VALIDATION_ERROR',
      detail: `Unknown field "${field}".`,
      errors: [{ path: field, message: 'unknown field' }],
    });
    expect(await counts()).toEqual(before);
  });

  it('names every unknown field and every invalid one', async () => {
    const res = await call(send, {
      body: { from: account.phone, to: 'nope', content: 'Hello', shoe_size: 2, colour: 'red' },
      apiKey: account.apiKey,
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        { path: 'shoe_size', message: 'unknown field' },
        { path: 'colour', message: 'unknown field' },
        expect.objectContaining({ path: 'to' }),
      ]),
    );
    expect(res.body.detail).toMatch(/^Unknown fields "shoe_size", "colour"\. Invalid body: to: /);
  });

  it('still ignores an unknown query parameter (query strings are not bodies)', async () => {
    const res = await call(listMessages, { path: '/api/v1/messages?unexpected_param=1', apiKey: account.apiKey });
    expect(res.status).toBe(200);
  });
});

describe('the Twilio-compatible API’s form bodies', () => {
  const formOperations = Object.entries(doc.paths)
    .filter(([path]) => path.startsWith('/2010-04-01/'))
    .flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, op]) => op.requestBody?.content['application/x-www-form-urlencoded'])
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );

  async function twilioCall(handler: RouteHandler, params: Record<string, string>, fields: string, method = 'POST') {
    const creds = await createAuthToken(db(), account.accountId);
    return call(handler, {
      method,
      params: { accountSid: creds.account_sid, ...params },
      rawBody: fields,
      headers: {
        authorization: `Basic ${Buffer.from(`${creds.account_sid}:${creds.auth_token}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
    });
  }

  it('are the two message operations', () => {
    expect(formOperations.sort()).toEqual([
      'POST /2010-04-01/Accounts/{accountSid}/Messages.json',
      'POST /2010-04-01/Accounts/{accountSid}/Messages/{messageSid}',
    ]);
  });

  it('ignore a parameter they do not know, as Twilio does', async () => {
    const to = testNumber();
    const created = await twilioCall(
      twilioMessages.POST,
      {},
      new URLSearchParams({
        To: to,
        From: account.phone,
        Body: 'hi',
        ProvideFeedback: 'true',
        Unexpected: '1',
      }).toString(),
    );
    expect(created.status, created.text).toBe(201);
    const canceled = await twilioCall(
      twilioMessage.POST,
      { messageSid: `${created.body.sid}.json` },
      new URLSearchParams({ Status: 'canceled', Unexpected: '1' }).toString(),
    );
    expect(canceled.status, canceled.text).toBe(200);
    expect(canceled.body.status).toBe('canceled');
  });

  it('answer a parameter of the wrong type with Twilio’s error, not a 500', async () => {
    for (const [fields, code] of [
      [
        `To=${encodeURIComponent(testNumber())}&To=%2B14155550100&From=${encodeURIComponent(account.phone)}&Body=x`,
        21211,
      ],
      [
        `To=${encodeURIComponent(testNumber())}&From=${encodeURIComponent(account.phone)}&Body=x&ValidityPeriod=soon`,
        20400,
      ],
      [
        `To=${encodeURIComponent(testNumber())}&From=${encodeURIComponent(account.phone)}&Body=x&SendAt=tomorrow&ScheduleType=fixed`,
        20400,
      ],
      [
        `To=${encodeURIComponent(testNumber())}&From=${encodeURIComponent(account.phone)}&Body=x&ScheduleType=sometime`,
        20400,
      ],
      ['%%%', 21211],
    ] as const) {
      const res = await twilioCall(twilioMessages.POST, {}, fields);
      expect({ status: res.status, code: res.body.code }, fields).toEqual({ status: 400, code });
      expect(res.contentType).toBe('application/json');
    }
  });
});
