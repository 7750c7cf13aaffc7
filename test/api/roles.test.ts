import { beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '@/app/route-index';
import { apiKeys, MEMBER_ROLES, type MemberRole } from '@/db/schema';
import { generateKey } from '@/lib/auth/keys';
import type { RouteHandler } from '@/lib/http/route';
import { EXEMPT, listedOperations, roleMayCall, routeRule } from '@/lib/members/route-areas';
import { type OperationSpec, specOf } from '@/lib/openapi/define';
import { MCP_TOOLS } from '@/lib/protocols/mcp/tools';
import { createTestAccount, type TestAccount } from '../fixtures';
import { call } from '../http';
import { APP_ORIGIN, addTestMember } from '../member-fixtures';
import { withTestDatabase } from '../setup-db';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

type Operation = { method: string; path: string; handler: RouteHandler; spec: OperationSpec; operationId: string };

/** Every operation of the route index (app/route-index.ts), with its handler and what it says of itself. */
const OPERATIONS: Operation[] = ROUTES.flatMap(({ path, module }) =>
  METHODS.flatMap((method) => {
    const handler = (module as Record<string, unknown>)[method] as RouteHandler | undefined;
    const spec = specOf(handler);
    if (!handler || !spec) return [];
    return [{ method, path, handler, spec, operationId: spec.doc?.operationId ?? `${method} ${path}` }];
  }),
);

const NO_ACCOUNT_PRINCIPAL = new Set(['none', 'device']);

describe('the table of route areas (lib/members/route-areas.ts)', () => {
  it('names every operation of the route index, as ruled or exempt', () => {
    const { ruled, exempt } = listedOperations();
    const listed = new Set([...ruled, ...exempt]);
    expect(OPERATIONS.map((o) => o.operationId).filter((id) => !listed.has(id))).toEqual([]);
  });

  it('names no operation that the route index lacks', () => {
    const { ruled, exempt } = listedOperations();
    const known = new Set(OPERATIONS.map((o) => o.operationId));
    expect([...ruled, ...exempt].filter((id) => !known.has(id))).toEqual([]);
  });

  it('exempts exactly the operations no account principal reaches', () => {
    const wrong = OPERATIONS.filter(
      (o) => Object.hasOwn(EXEMPT, o.operationId) !== NO_ACCOUNT_PRINCIPAL.has(o.spec.auth),
    ).map((o) => `${o.operationId} (${o.spec.auth})`);
    expect(wrong).toEqual([]);
  });

  it('rules every MCP tool by its REST operation', () => {
    for (const [name, tool] of Object.entries(MCP_TOOLS)) {
      expect(routeRule(tool.operationId), name).toBeDefined();
      const operation = OPERATIONS.find((o) => o.operationId === tool.operationId);
      expect(`${operation?.method} ${operation?.path}`, name).toBe(tool.rest);
    }
  });
});

const { db } = withTestDatabase();
let account: TestAccount;
/** An API key of each role, for the surfaces that take keys only (SMSGate's integrator API). */
const keys = new Map<MemberRole, string>();

beforeAll(async () => {
  account = await createTestAccount(db());
  for (const role of MEMBER_ROLES) {
    const key = generateKey('account');
    await db()
      .insert(apiKeys)
      .values({ accountId: account.accountId, name: role, keyHash: key.hash, prefix: key.prefix, role });
    keys.set(role, key.key);
  }
});

/** A value for each path parameter that names nothing of the account: the route may answer 400 or 404. */
function pathOf(path: string): { path: string; params: Record<string, string> } {
  const params: Record<string, string> = {};
  const NOTHING = '00000000-0000-4000-8000-00000000dead';
  for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) params[name!] = NOTHING;
  return { path: path.replace(/\{[^}]+\}/g, NOTHING), params };
}

/**
 * How a caller of `role` reaches the operation: a member's dashboard session on the REST API, a key
 * given the role on SMSGate's integrator API. Twilio's surface authenticates with the account's Auth
 * Token, which has no role, so nothing there is bounded by one.
 */
async function callAs(operation: Operation, role: MemberRole) {
  const { path, params } = pathOf(operation.path);
  const method = operation.method;
  const body = method === 'GET' || method === 'HEAD' || method === 'DELETE' ? undefined : {};
  if (operation.spec.auth === 'integrator') {
    const basic = Buffer.from(`user:${keys.get(role)}`).toString('base64');
    return call(operation.handler, { method, path, params, body, headers: { authorization: `Basic ${basic}` } });
  }
  // A fresh member each time: an operation may end the caller's sessions (sign-out everywhere).
  const member = await addTestMember(db(), account.accountId, role);
  return call(operation.handler, {
    method,
    path,
    params,
    body,
    headers: { cookie: member.cookie, origin: APP_ORIGIN },
  });
}

const CASES = OPERATIONS.filter((o) => !NO_ACCOUNT_PRINCIPAL.has(o.spec.auth) && o.spec.auth !== 'twilio');

describe.each(MEMBER_ROLES)('a caller of the role %s', (role) => {
  it.each(CASES.map((o) => [`${o.method} ${o.path}`, o] as const))('%s', async (_name, operation) => {
    const rule = routeRule(operation.operationId);
    expect(rule, operation.operationId).toBeDefined();
    const closed = !roleMayCall(role, rule!, operation.method);
    const res = await callAs(operation, role);
    // A 403 for another reason (a JWT without the scope a route needs) is not the role's.
    const refused = res.status === 403 && /role \(\w+\) may not/.test(res.text);
    if (closed) {
      expect(res.status, res.text).toBe(403);
      // SMSGate's surface answers `{ message }`; ours problem+json naming the role.
      expect(res.text).toContain(`(${role}) may not`);
    } else {
      expect(refused, res.text).toBe(false);
    }
  });
});
