import { eq } from 'drizzle-orm';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import * as catalogRoute from '@/app/.well-known/api-catalog/route';
import * as revokeRoute from '@/app/api/3rdparty/v1/auth/token/[jti]/route';
import * as refreshRoute from '@/app/api/3rdparty/v1/auth/token/refresh/route';
import * as tokenRoute from '@/app/api/3rdparty/v1/auth/token/route';
import * as devicesRoute from '@/app/api/3rdparty/v1/devices/route';
import * as inboxRoute from '@/app/api/3rdparty/v1/inbox/route';
import * as logsRoute from '@/app/api/3rdparty/v1/logs/route';
import * as messageRoute from '@/app/api/3rdparty/v1/messages/[id]/route';
import * as messagesRoute from '@/app/api/3rdparty/v1/messages/route';
import * as settingsRoute from '@/app/api/3rdparty/v1/settings/route';
import { POST as received } from '@/app/api/v1/device/messages/received/route';
import { ROUTES } from '@/app/route-index';
import { apiKeys, smsgateTokens } from '@/db/schema';
import { specOf } from '@/lib/openapi/define';
import { HTTP_METHODS } from '@/lib/openapi/document';
import { ACCESS_TTL_DEFAULT_S, ACCESS_TTL_MAX_S } from '@/lib/protocols/smsgate-api/jwt';
import { OPERATION_SCOPES, SMSGATE_SCOPES } from '@/lib/protocols/smsgate-api/scopes';
import { createTestAccount, type TestAccount, testNumber } from '../fixtures';
import { type CallOptions, call } from '../http';
import { withTestDatabase } from '../setup-db';

/**
 * The integrator routes of SMSGate's reference server (android-sms-gateway/server at 22074dd) that
 * integrations call directly. Wire shapes, status codes and scope names as these sources show them:
 * - internal/sms-gateway/handlers/thirdparty/auth.go: POST /auth/token (201, `smsgateway.TokenResponse`),
 *   POST /auth/token/refresh (201, scope `tokens:refresh` exactly), DELETE /auth/token/{jti} (204);
 * - internal/sms-gateway/jwt/service.go, jwt.go: HS256, claims `user_id`, `scopes`, refresh's `original_scopes`;
 *   `ttl` 0 means the default, a longer one is cut;
 * - internal/sms-gateway/handlers/middlewares/permissions/permissions.go: 403 `scope required: <scope>`;
 * - client-go smsgateway `JWTScope` (listed in internal/sms-gateway/openapi/docs.go): the scope names;
 * - internal/sms-gateway/handlers/inbox/3rdparty.go: GET /inbox (`smsgateway.IncomingMessage[]`,
 *   `type`, `from`, `to`, `deviceId`, `limit` ≤ 500, `offset`, `X-Total-Count`);
 * - internal/sms-gateway/handlers/logs/3rdparty.go: GET /logs (`smsgateway.LogEntry[]`, `from`, `to`);
 * - internal/sms-gateway/handlers/api_catalog.go: /.well-known/api-catalog (RFC 9727 linkset).
 */

process.env.APP_SECRET ??= 'test-app-secret-for-webhooks-0123456789abcdef';

const { db } = withTestDatabase();

const basic = (key: string) => ({ authorization: `Basic ${Buffer.from(`login:${key}`).toString('base64')}` });
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function as(account: TestAccount, handler: Parameters<typeof call>[0], options: CallOptions = {}) {
  return call(handler, { ...options, headers: { ...basic(account.apiKey), ...options.headers } });
}

function withToken(token: string, handler: Parameters<typeof call>[0], options: CallOptions = {}) {
  return call(handler, { ...options, headers: { ...bearer(token), ...options.headers } });
}

async function issue(account: TestAccount, body: Record<string, unknown>) {
  const res = await as(account, tokenRoute.POST, { body, path: '/3rdparty/v1/auth/token' });
  expect(res.status, res.text).toBe(201);
  return res.body as {
    id: string;
    token_type: string;
    access_token: string;
    refresh_token: string;
    expires_at: string;
  };
}

const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1] as string, 'base64url').toString('utf8')) as Record<string, unknown>;

afterEach(() => {
  vi.useRealTimers();
});

describe('POST /auth/token', () => {
  let account: TestAccount;
  beforeAll(async () => {
    account = await createTestAccount(db(), { credits: 10 });
  });

  it('answers 201 with the reference’s TokenResponse: an HS256 JWT with the scopes, and a refresh token', async () => {
    const before = Date.now();
    const res = await issue(account, { scopes: ['messages:send', 'messages:read'], ttl: 600 });
    expect(res).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9_-]{21}$/),
      token_type: 'Bearer',
      access_token: expect.stringMatching(/^eyJ[\w-]+\.[\w-]+\.[\w-]+$/),
      refresh_token: expect.stringMatching(/^eyJ[\w-]+\.[\w-]+\.[\w-]+$/),
      expires_at: expect.any(String),
    });
    const header = JSON.parse(Buffer.from(res.access_token.split('.')[0] as string, 'base64url').toString('utf8'));
    expect(header).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(claimsOf(res.access_token)).toMatchObject({
      jti: res.id,
      sub: account.accountId,
      user_id: account.accountId,
      scopes: ['messages:send', 'messages:read'],
    });
    expect(claimsOf(res.refresh_token)).toMatchObject({
      scopes: ['tokens:refresh'],
      original_scopes: ['messages:send', 'messages:read'],
    });
    const lifetime = (Date.parse(res.expires_at) - before) / 1000;
    expect(lifetime).toBeGreaterThan(590);
    expect(lifetime).toBeLessThanOrEqual(601);
  });

  it('takes ttl 0 or none as the default and cuts a longer one to the maximum', async () => {
    for (const [ttl, expected] of [
      [undefined, ACCESS_TTL_DEFAULT_S],
      [0, ACCESS_TTL_DEFAULT_S],
      [10 * ACCESS_TTL_MAX_S, ACCESS_TTL_MAX_S],
    ] as const) {
      const res = await issue(account, { scopes: ['devices:list'], ...(ttl === undefined ? {} : { ttl }) });
      const claims = claimsOf(res.access_token) as { iat: number; exp: number };
      expect(claims.exp - claims.iat, String(ttl)).toBe(expected);
    }
  });

  it.each([
    ['no scopes', {}],
    ['an empty list', { scopes: [] }],
    ['an unknown scope', { scopes: ['messages:everything'] }],
    ['the reference’s all:any', { scopes: ['all:any'] }],
    ['the refresh scope', { scopes: ['tokens:refresh'] }],
    ['a negative ttl', { scopes: ['messages:send'], ttl: -1 }],
    ['a fractional ttl', { scopes: ['messages:send'], ttl: 1.5 }],
  ])('refuses %s with 400', async (_label, body) => {
    const res = await as(account, tokenRoute.POST, { body });
    expect(res.status).toBe(400);
    expect(res.body.message).toEqual(expect.any(String));
  });

  it('issues from a token only the scopes that token holds', async () => {
    const manager = await issue(account, { scopes: ['tokens:manage', 'messages:list'] });
    const narrower = await withToken(manager.access_token, tokenRoute.POST, { body: { scopes: ['messages:list'] } });
    expect(narrower.status, narrower.text).toBe(201);
    const wider = await withToken(manager.access_token, tokenRoute.POST, { body: { scopes: ['messages:send'] } });
    expect(wider.status).toBe(403);
    expect(wider.body.message).toContain('messages:send');
    const noManage = await issue(account, { scopes: ['messages:list'] });
    const refused = await withToken(noManage.access_token, tokenRoute.POST, { body: { scopes: ['messages:list'] } });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('scope required: tokens:manage');
  });
});

describe('a JWT as Bearer', () => {
  let account: TestAccount;
  beforeAll(async () => {
    account = await createTestAccount(db(), { credits: 10 });
  });

  it('opens the operations its scopes name and answers 403 `scope required` to the others', async () => {
    const { access_token: token } = await issue(account, { scopes: ['messages:send', 'messages:read'] });
    const sent = await withToken(token, messagesRoute.POST, {
      body: { id: 'jwt-1', textMessage: { text: 'hi' }, phoneNumbers: [testNumber()] },
      path: '/3rdparty/v1/messages',
    });
    expect(sent.status, sent.text).toBe(202);
    expect((await withToken(token, messageRoute.GET, { params: { id: 'jwt-1' } })).body.state).toBe('Pending');
    for (const [handler, scope, options] of [
      [messagesRoute.GET, 'messages:list', {}],
      [messageRoute.DELETE, 'messages:cancel', { params: { id: 'jwt-1' }, method: 'DELETE' }],
      [devicesRoute.GET, 'devices:list', {}],
      [settingsRoute.GET, 'settings:read', {}],
      [settingsRoute.PUT, 'settings:write', { method: 'PUT', body: {} }],
      [inboxRoute.GET, 'inbox:list', {}],
      [logsRoute.GET, 'logs:read', {}],
      [tokenRoute.POST, 'tokens:manage', { body: { scopes: ['messages:send'] } }],
    ] as const) {
      const res = await withToken(token, handler, options as CallOptions);
      expect(res.status, scope).toBe(403);
      expect(res.contentType).toMatch(/^application\/json/);
      expect(res.body.message).toBe(`scope required: ${scope}`);
    }
    // Nothing was cancelled by the refused DELETE.
    expect((await as(account, messageRoute.GET, { params: { id: 'jwt-1' } })).body.state).toBe('Pending');
  });

  it('names every operation of the integrator API a scope of the reference, and the documentation says it', () => {
    const operations = ROUTES.filter(({ path }) => path.startsWith('/api/3rdparty/v1/')).flatMap(({ module }) =>
      HTTP_METHODS.filter((method) => method in module).map((method) => specOf(module[method as keyof typeof module])),
    );
    const integrator = operations.filter((spec) => spec?.auth === 'integrator');
    expect(integrator.length).toBeGreaterThan(15);
    for (const spec of integrator) {
      const scope = OPERATION_SCOPES[spec?.doc?.operationId ?? ''];
      expect(scope, spec?.doc?.operationId).toBeDefined();
      expect([...SMSGATE_SCOPES, 'tokens:refresh']).toContain(scope);
      expect(spec?.doc?.description).toContain(`JWT scope: \`${scope}\``);
    }
  });

  it('is refused with 401 once expired, without waiting for it', async () => {
    const { access_token: token } = await issue(account, { scopes: ['devices:list'], ttl: 60 });
    expect((await withToken(token, devicesRoute.GET)).status).toBe(200);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 61_000);
    const res = await withToken(token, devicesRoute.GET);
    expect(res.status).toBe(401);
    expect(res.body.message).toContain('expired');
  });

  it.each([
    ['a bad signature', (t: string) => `${t.slice(0, -4)}AAAA`],
    [
      'other claims under the same signature',
      (t: string) => {
        const [header, , signature] = t.split('.');
        const forged = Buffer.from(JSON.stringify({ ...claimsOf(t), scopes: ['settings:write'] })).toString(
          'base64url',
        );
        return `${header}.${forged}.${signature}`;
      },
    ],
    [
      'alg none',
      (t: string) => {
        const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
        return `${header}.${t.split('.')[1]}.`;
      },
    ],
  ])('refuses %s with 401', async (_label, tamper) => {
    const { access_token: token } = await issue(account, { scopes: ['devices:list'] });
    expect((await withToken(tamper(token), devicesRoute.GET)).status).toBe(401);
  });

  it('is refused once the API key that issued it is revoked', async () => {
    const other = await createTestAccount(db());
    const { access_token: token } = await issue(other, { scopes: ['devices:list'] });
    expect((await withToken(token, devicesRoute.GET)).status).toBe(200);
    await db().update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, other.apiKeyId));
    expect((await withToken(token, devicesRoute.GET)).status).toBe(401);
  });

  it('is not accepted as Basic password', async () => {
    const { access_token: token } = await issue(account, { scopes: ['devices:list'] });
    expect((await call(devicesRoute.GET, { headers: basic(token) })).status).toBe(401);
  });
});

describe('DELETE /auth/token/{jti} and POST /auth/token/refresh', () => {
  let account: TestAccount;
  beforeAll(async () => {
    account = await createTestAccount(db());
  });

  it('revokes a token and its refresh token (204, again 204), kept in the revocation list', async () => {
    const pair = await issue(account, { scopes: ['devices:list'] });
    expect((await withToken(pair.access_token, devicesRoute.GET)).status).toBe(200);
    const revoke = () => as(account, revokeRoute.DELETE, { params: { jti: pair.id }, method: 'DELETE' });
    expect((await revoke()).status).toBe(204);
    expect((await revoke()).status).toBe(204);
    expect((await withToken(pair.access_token, devicesRoute.GET)).status).toBe(401);
    expect((await withToken(pair.refresh_token, refreshRoute.POST, { method: 'POST' })).status).toBe(401);
    const rows = await db().select().from(smsgateTokens).where(eq(smsgateTokens.accountId, account.accountId));
    expect(rows.filter((row) => row.jti === pair.id || row.parentJti === pair.id).every((row) => row.revokedAt)).toBe(
      true,
    );
  });

  it('revokes with a JWT holding tokens:manage, and refuses one without', async () => {
    const target = await issue(account, { scopes: ['devices:list'] });
    const weak = await issue(account, { scopes: ['devices:list'] });
    const refused = await withToken(weak.access_token, revokeRoute.DELETE, {
      params: { jti: target.id },
      method: 'DELETE',
    });
    expect(refused.status).toBe(403);
    const manager = await issue(account, { scopes: ['tokens:manage'] });
    const res = await withToken(manager.access_token, revokeRoute.DELETE, {
      params: { jti: target.id },
      method: 'DELETE',
    });
    expect(res.status).toBe(204);
    expect((await withToken(target.access_token, devicesRoute.GET)).status).toBe(401);
  });

  it('answers 404 for another account’s jti, which stays valid', async () => {
    const other = await createTestAccount(db());
    const theirs = await issue(other, { scopes: ['devices:list'] });
    const res = await as(account, revokeRoute.DELETE, { params: { jti: theirs.id }, method: 'DELETE' });
    expect(res.status).toBe(404);
    expect((await as(account, revokeRoute.DELETE, { params: { jti: 'no-such-jti' }, method: 'DELETE' })).status).toBe(
      404,
    );
    expect((await withToken(theirs.access_token, devicesRoute.GET)).status).toBe(200);
  });

  it('refreshes once: a new pair with the original scopes (201), the used refresh token then 401', async () => {
    const pair = await issue(account, { scopes: ['devices:list', 'settings:read'], ttl: 60 });
    const res = await withToken(pair.refresh_token, refreshRoute.POST, { method: 'POST' });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject({ token_type: 'Bearer', id: expect.any(String) });
    expect(res.body.id).not.toBe(pair.id);
    expect(claimsOf(res.body.access_token).scopes).toEqual(['devices:list', 'settings:read']);
    expect((await withToken(res.body.access_token, settingsRoute.GET)).status).toBe(200);
    expect((await withToken(pair.refresh_token, refreshRoute.POST, { method: 'POST' })).status).toBe(401);
    expect((await withToken(res.body.refresh_token, refreshRoute.POST, { method: 'POST' })).status).toBe(201);
  });

  it('takes only a refresh token: an account key or an access token answers 403, a refresh token opens nothing else', async () => {
    const pair = await issue(account, { scopes: ['devices:list'] });
    const byKey = await as(account, refreshRoute.POST, { method: 'POST' });
    expect(byKey.status).toBe(403);
    expect(byKey.body.message).toBe('scope required: tokens:refresh');
    expect((await withToken(pair.access_token, refreshRoute.POST, { method: 'POST' })).status).toBe(403);
    expect((await withToken(pair.refresh_token, devicesRoute.GET)).status).toBe(403);
  });
});

describe('GET /inbox', () => {
  it('lists the received messages as IncomingMessage, newest first, with filters, paging and X-Total-Count', async () => {
    const account = await createTestAccount(db());
    const senders = [testNumber(), testNumber(), testNumber()];
    for (const [i, from] of senders.entries()) {
      const res = await call(received, {
        body: { from, content: `hello ${i}`, device_message_id: `in-${i}` },
        apiKey: account.deviceKey,
      });
      expect(res.status, res.text).toBeLessThan(300);
    }
    const all = await as(account, inboxRoute.GET, { path: '/3rdparty/v1/inbox' });
    expect(all.status, all.text).toBe(200);
    expect(all.headers.get('x-total-count')).toBe('3');
    expect(all.headers.get('link')).toBe('</.well-known/api-catalog>; rel="api-catalog"');
    expect(all.body.map((m: { sender: string }) => m.sender)).toEqual([...senders].reverse());
    expect(all.body[0]).toEqual({
      id: expect.any(String),
      type: 'SMS',
      sender: senders[2],
      recipient: account.phone,
      contentPreview: 'hello 2',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
    });
    const page = await as(account, inboxRoute.GET, { path: '/3rdparty/v1/inbox?limit=1&offset=1' });
    expect(page.body.map((m: { sender: string }) => m.sender)).toEqual([senders[1]]);
    expect(page.headers.get('x-total-count')).toBe('3');
    const future = new Date(Date.now() + 3600_000).toISOString();
    expect((await as(account, inboxRoute.GET, { path: `/3rdparty/v1/inbox?from=${future}` })).body).toEqual([]);
    const byDevice = await as(account, inboxRoute.GET, { path: `/3rdparty/v1/inbox?deviceId=${account.phoneId}` });
    expect(byDevice.body).toHaveLength(3);
    expect((await as(account, inboxRoute.GET, { path: '/3rdparty/v1/inbox?deviceId=nope' })).body).toEqual([]);
    expect((await as(account, inboxRoute.GET, { path: '/3rdparty/v1/inbox?type=SMS' })).body).toHaveLength(3);
    expect((await as(account, inboxRoute.GET, { path: '/3rdparty/v1/inbox?type=MMS' })).body).toEqual([]);
    for (const bad of ['limit=501', 'limit=0', 'offset=-1', 'type=FAX', 'from=yesterday']) {
      expect((await as(account, inboxRoute.GET, { path: `/3rdparty/v1/inbox?${bad}` })).status, bad).toBe(400);
    }
    // Sent messages are not in the inbox; another account sees none of these.
    const other = await createTestAccount(db());
    expect((await as(other, inboxRoute.GET)).body).toEqual([]);
    const { access_token: token } = await issue(account, { scopes: ['inbox:list'] });
    expect((await withToken(token, inboxRoute.GET)).body).toHaveLength(3);
  });
});

describe('GET /logs', () => {
  it('answers the message history as LogEntry, oldest first, within from/to', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    const sent = await as(account, messagesRoute.POST, {
      body: { id: 'log-1', message: 'x', phoneNumbers: [testNumber()] },
    });
    expect(sent.status).toBe(202);
    await as(account, messageRoute.DELETE, { params: { id: 'log-1' }, method: 'DELETE' });
    const res = await as(account, logsRoute.GET, { path: '/3rdparty/v1/logs' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.length).toBeGreaterThanOrEqual(2);
    for (const entry of res.body) {
      expect(entry).toEqual({
        id: expect.any(Number),
        createdAt: expect.any(String),
        module: 'messages',
        priority: expect.stringMatching(/^(DEBUG|INFO|WARN|ERROR)$/),
        message: expect.any(String),
        context: expect.objectContaining({ messageId: expect.any(String), state: expect.any(String) }),
      });
    }
    const states = res.body.map((entry: { context: { state: string } }) => entry.context.state);
    expect(states.indexOf('queued')).toBeLessThan(states.indexOf('cancelled'));
    const past = new Date(Date.now() - 3600_000).toISOString();
    expect((await as(account, logsRoute.GET, { path: `/3rdparty/v1/logs?to=${past}` })).body).toEqual([]);
    expect((await as(account, logsRoute.GET, { path: '/3rdparty/v1/logs?from=soon' })).status).toBe(400);
    const other = await createTestAccount(db());
    expect((await as(other, logsRoute.GET)).body).toEqual([]);
  });
});

describe('GET /.well-known/api-catalog', () => {
  it('answers an RFC 9727 linkset naming the integrator API, its OpenAPI document, docs and readiness probe', async () => {
    const res = await call(catalogRoute.GET, { path: '/.well-known/api-catalog' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(
      'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"',
    );
    expect(res.headers.get('link')).toBe('</.well-known/api-catalog>; rel="api-catalog"');
    const body = JSON.parse(res.text);
    expect(body.linkset[0]).toEqual({
      anchor: 'http://localhost:3000/3rdparty/v1',
      'service-desc': [{ href: 'http://localhost:3000/api/v1/openapi.json', type: 'application/json' }],
      'service-doc': [{ href: 'http://localhost:3000/docs', type: 'text/html' }],
      status: [{ href: 'http://localhost:3000/3rdparty/v1/health/ready', type: 'application/json' }],
    });
    expect(body.linkset.map((entry: { anchor: string }) => new URL(entry.anchor).pathname)).toEqual([
      '/3rdparty/v1',
      '/api/v1',
      '/2010-04-01',
    ]);
  });
});

describe('a token minted by another token', () => {
  let account: TestAccount;
  beforeAll(async () => {
    account = await createTestAccount(db());
  });

  const mint = async (minter: string, body: Record<string, unknown>) => {
    const res = await withToken(minter, tokenRoute.POST, { body, path: '/3rdparty/v1/auth/token' });
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string; access_token: string; refresh_token: string; expires_at: string };
  };
  const refresh = (token: string) => withToken(token, refreshRoute.POST, { method: 'POST' });

  it('lives no longer than its minter, nor does its refresh token', async () => {
    const parent = await issue(account, { scopes: ['tokens:manage', 'devices:list'], ttl: 60 });
    const child = await mint(parent.access_token, { scopes: ['devices:list'], ttl: ACCESS_TTL_MAX_S });
    const parentExp = claimsOf(parent.access_token).exp as number;
    expect(claimsOf(child.access_token).exp).toBeLessThanOrEqual(parentExp);
    expect(claimsOf(child.refresh_token).exp).toBeLessThanOrEqual(parentExp);
    expect(Date.parse(child.expires_at)).toBeLessThanOrEqual(parentExp * 1000);
    // A refresh keeps the bound.
    const renewed = await refresh(child.refresh_token);
    expect(renewed.status, renewed.text).toBe(201);
    expect(claimsOf(renewed.body.access_token).exp).toBeLessThanOrEqual(parentExp);
    expect(claimsOf(renewed.body.refresh_token).exp).toBeLessThanOrEqual(parentExp);
  });

  it('is revoked with its minter, as are the tokens it minted and its refreshed successors', async () => {
    const parent = await issue(account, { scopes: ['tokens:manage', 'devices:list'], ttl: 60 });
    const child = await mint(parent.access_token, { scopes: ['tokens:manage', 'devices:list'], ttl: ACCESS_TTL_MAX_S });
    const grandchild = await mint(child.access_token, { scopes: ['devices:list'] });
    const sibling = await mint(parent.access_token, { scopes: ['devices:list'] });
    const renewed = (await refresh(sibling.refresh_token)).body as { access_token: string; refresh_token: string };
    const descendants = [child, grandchild, renewed].flatMap((pair) => [pair.access_token, pair.refresh_token]);
    for (const token of [child.access_token, grandchild.access_token, renewed.access_token]) {
      expect((await withToken(token, devicesRoute.GET)).status).toBe(200);
    }
    // Another token of the account, minted by the key, is not touched.
    const unrelated = await issue(account, { scopes: ['devices:list'] });

    const revoked = await as(account, revokeRoute.DELETE, { params: { jti: parent.id }, method: 'DELETE' });
    expect(revoked.status).toBe(204);
    for (const token of [child.access_token, grandchild.access_token, renewed.access_token]) {
      expect((await withToken(token, devicesRoute.GET)).status).toBe(401);
    }
    for (const token of descendants.filter((_, i) => i % 2 === 1)) expect((await refresh(token)).status).toBe(401);
    expect((await withToken(unrelated.access_token, devicesRoute.GET)).status).toBe(200);
  });

  it(`an account holds at most SMSGATE_TOKENS_PER_ACCOUNT live tokens: one more answers 429 with Retry-After`, async () => {
    vi.stubEnv('SMSGATE_TOKENS_PER_ACCOUNT', '3');
    try {
      const holder = await createTestAccount(db());
      const first = await issue(holder, { scopes: ['tokens:manage', 'devices:list'], ttl: 120 });
      await issue(holder, { scopes: ['devices:list'] });
      await mint(first.access_token, { scopes: ['devices:list'] });
      const refused = await as(holder, tokenRoute.POST, {
        body: { scopes: ['devices:list'] },
        path: '/3rdparty/v1/auth/token',
      });
      expect(refused.status).toBe(429);
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(120);
      expect(
        (await withToken(first.access_token, tokenRoute.POST, { body: { scopes: ['devices:list'] } })).status,
      ).toBe(429);
      expect((await refresh(first.refresh_token)).status).toBe(429);
      // Revoking frees room (the first and the token it minted).
      expect((await as(holder, revokeRoute.DELETE, { params: { jti: first.id }, method: 'DELETE' })).status).toBe(204);
      await issue(holder, { scopes: ['devices:list'] });
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
