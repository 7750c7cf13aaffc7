import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { type Database, getDb, isStaleCachedPlan, queryLogging, withQueryOrigin, withRequestDeadline } from '@/db';
import { actingAs } from '@/lib/audit/actor';
import type { AccountPrincipal, Principal } from '@/lib/auth/principal';
import { DomainError } from '@/lib/errors';
import { guardedByRoute, misdirected, securedAnswer } from '@/lib/http/front-door';
import { log } from '@/lib/log';
import { accessFor, type RouteRule, refusalDetail, roleMayCall, routeRule } from '@/lib/members/route-areas';
import { httpAnswered, surfaceOf } from '@/lib/metrics/http';
import { heldResponse } from '@/lib/net/held-body';
import { problemBody, problemResponse } from '@/lib/net/problem';
import { attachSpec, type OperationDoc } from '@/lib/openapi/define';
import { handling } from '@/lib/runtime/lifecycle';
import { auditActorOf } from './actor';
import { checkingAnswers, contractBreach } from './answer-contract';
import { queryObject, readFormBody, readJsonBody, validate } from './parse';
import { type AuthMode, authenticate, type PrincipalFor } from './request-auth';

type Schema = z.ZodType | undefined;
type Out<S extends Schema> = S extends z.ZodType ? z.output<S> : undefined;

export type RouteOptions<M extends AuthMode, B extends Schema, Q extends Schema, P extends Schema> = {
  auth: M;
  body?: B;
  query?: Q;
  params?: P;
  /** `form`: the body is application/x-www-form-urlencoded (Twilio's surface); JSON otherwise. */
  bodyFormat?: 'json' | 'form';
  /** Status of a successful answer that is not a Response (default 200; 204 when nothing is returned). */
  status?: number;
  /**
   * The route serves a session that owes its second factor (lib/auth/principal.ts `twoFactorPending`):
   * the two-factor routes and sign-out. Every other route refuses it.
   */
  allowPendingTwoFactor?: true;
  /**
   * The operation's documentation: the OpenAPI document is generated from the routes themselves. Optional
   * only for handlers built in tests; the document refuses a route of app/api without it.
   */
  doc?: OperationDoc;
};

export type RouteContext<M extends AuthMode, B extends Schema, Q extends Schema, P extends Schema> = {
  req: Request;
  url: URL;
  requestId: string;
  db: Database;
  principal: PrincipalFor<M>;
  body: Out<B>;
  query: Out<Q>;
  params: Out<P>;
};

type PathParams = Record<string, string | string[]>;
type NextContext = { params: Promise<PathParams> };
export type RouteHandler = (req: Request, context: NextContext) => Promise<Response>;

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

function requestIdOf(req: Request): string {
  const incoming = req.headers.get('x-request-id');
  return incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return heldResponse(JSON.stringify(body), { status, headers: { ...headers, 'content-type': 'application/json' } });
}

/**
 * The one wrapper every /api route goes through: authenticate, parse, run, respond.
 * Whatever is thrown ends as problem+json; nothing internal leaks. The handler carries its options
 * and documentation, from which lib/openapi/document.ts writes its operation.
 */
export function route<
  M extends AuthMode,
  B extends Schema = undefined,
  Q extends Schema = undefined,
  P extends Schema = undefined,
>(options: RouteOptions<M, B, Q, P>, handler: (ctx: RouteContext<M, B, Q, P>) => Promise<unknown>): RouteHandler {
  // The operation's area and access (lib/members/route-areas.ts), looked up once per route.
  const rule = routeRule(options.doc?.operationId);
  const run: RouteHandler = (req, nextContext) => handling(() => answer(req, nextContext));
  const answer: RouteHandler = async (req, nextContext) => {
    const requestId = requestIdOf(req);
    const started = performance.now();
    const url = new URL(req.url);
    const surface = surfaceOf(url.pathname);
    let response: Response;
    let rawParams: PathParams | undefined;
    try {
      rawParams = await nextContext?.params;
      // The proxy's check, for the paths it leaves to this wrapper (lib/http/front-door.ts).
      const refused = guardedByRoute(url.pathname)
        ? misdirected(url.pathname, req.headers.get('host'), req.url)
        : undefined;
      if (refused) {
        httpAnswered(surface, routePattern(url.pathname, rawParams), req.method, refused.status, elapsed(started));
        return answered(refused, requestId, req);
      }
      const work = async () => {
        const db = await getDb();
        const principal = await authenticate(db, req, options.auth);
        if (!options.allowPendingTwoFactor) refusePendingTwoFactor(principal);
        if (rule) authorize(principal, rule, req.method);
        const params = options.params ? validate(options.params, rawParams, 'path') : undefined;
        const query = options.query ? validate(options.query, queryObject(url), 'query') : undefined;
        const body = options.body
          ? validate(
              options.body,
              options.bodyFormat === 'form' ? await readFormBody(req) : await readJsonBody(req),
              'body',
            )
          : undefined;
        const context = { req, url, requestId, db, principal, body, query, params } as RouteContext<M, B, Q, P>;
        // Audit entries written by the work name this request's key or session and its address.
        return actingAs(
          () => auditActorOf(principal, req),
          () => handler(context),
        );
      };
      // The query log's origin (db/query-log.ts), only when statements are logged: the operation.
      // Every wait for the database shares the request's one deadline (REQUEST_DEADLINE_MS).
      const result = await withRequestDeadline(() =>
        queryLogging
          ? withQueryOrigin(
              `request:${options.doc?.operationId ?? `${req.method} ${routePattern(url.pathname, rawParams)}`}`,
              work,
            )
          : work(),
      );
      response = toResponse(result, options.status);
      if (checkingAnswers) {
        const breach = await contractBreach(options.doc, options.status, response);
        // Only under tests: the detail names the breach, so the failing test shows it.
        if (breach) throw new DomainError('INTERNAL_ERROR', breach);
      }
    } catch (error) {
      response = errorResponse(error, requestId, req, routePattern(url.pathname, rawParams));
    }
    answered(response, requestId, req);
    const seconds = elapsed(started);
    httpAnswered(surface, routePattern(url.pathname, rawParams), req.method, response.status, seconds);
    log.debug(
      { requestId, method: req.method, path: url.pathname, status: response.status, ms: Math.round(seconds * 1000) },
      'request',
    );
    return response;
  };
  return attachSpec(run, options);
}

/** A session whose account requires two-factor sign-in, of a member with none yet, may only enrol. */
function refusePendingTwoFactor(principal: unknown): void {
  if ((principal as AccountPrincipal | null)?.twoFactorPending) {
    throw new DomainError(
      'FORBIDDEN',
      'two-factor required: this account requires two-factor sign-in. Turn it on in Settings → Security first.',
    );
  }
}

/**
 * Step two: may the caller's role do this (lib/members/roles.ts)? Only an account principal with a role
 * is bounded: a member's session, or a key given a role. 403 FORBIDDEN names the roles that may.
 */
function authorize(principal: Principal | null, rule: RouteRule, method: string): void {
  if (principal?.kind !== 'account' || !principal.role || roleMayCall(principal.role, rule, method)) return;
  throw new DomainError('FORBIDDEN', refusalDetail(principal.role, rule.area, accessFor(rule, method), principal.via));
}

function elapsed(started: number): number {
  return (performance.now() - started) / 1000;
}

/** Every answer names its request and carries the security headers. */
function answered(response: Response, requestId: string, req: Request): Response {
  response.headers.set('x-request-id', requestId);
  securedAnswer(response, req);
  return response;
}

function toResponse(result: unknown, status: number | undefined): Response {
  if (result instanceof Response) return result;
  if (result === undefined) return new Response(null, { status: 204 });
  return json(result, status ?? 200);
}

/**
 * The path with each parameter's value replaced by its name (`/api/v1/phones/[id]`): a log line
 * names the route, never a value of the request. Parameters come in the order of their segments.
 */
export function routePattern(pathname: string, params: PathParams | undefined): string {
  const segments = pathname.split('/');
  let from = 0;
  for (const [name, value] of Object.entries(params ?? {})) {
    const values = Array.isArray(value) ? value : [value];
    for (const one of values) {
      const at = segments.findIndex((segment, index) => index >= from && safeDecode(segment) === one);
      if (at < 0) continue;
      segments[at] = Array.isArray(value) ? `[...${name}]` : `[${name}]`;
      from = at + 1;
    }
  }
  return segments.join('/');
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

// Postgres errors that only bad input can cause: class 22 (data exception: invalid text
// representation, numeric value out of range, datetime overflow, …) and 54000 (program limit
// exceeded: a value too large to index). Then those that mean the database is away.
const INPUT_SQLSTATE = /^(22[0-9A-Z]{3}|54000)$/;
// …and a transaction the database aborted to break a deadlock or a serialisation conflict: retryable.
// 57014: a statement past DATABASE_STATEMENT_TIMEOUT_MS (or its request's deadline). DATABASE_*: the
// waits db/guard.ts bounds, and the request's deadline (REQUEST_DEADLINE_MS).
const UNAVAILABLE_SQLSTATES = /^(08|57P0|57014|53|40P01|40001)/;
const UNAVAILABLE_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'CONNECTION_CLOSED',
  'CONNECT_TIMEOUT',
  'DATABASE_BUSY',
  'DATABASE_ACQUIRE_TIMEOUT',
  'DATABASE_NO_ANSWER',
  'DATABASE_DEADLINE',
  // postgres-js refused a BEGIN on a connection it had not reserved: none of the transaction's work ran, so
  // a retry is safe. patches/postgres+3.4.9.patch reserves every BEGIN's connection; this stays a safety net.
  'UNSAFE_TRANSACTION',
]);

/** Driver error codes along the `cause` chain (drizzle wraps the driver's error). */
function errorCodes(error: unknown): string[] {
  const codes: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    current = (current as { cause?: unknown }).cause;
  }
  return codes;
}

/**
 * Any thrown value as problem+json. `routePath` (a pattern, see `routePattern`) is what a warning
 * names, so that no value of the request reaches the log.
 */
export function errorResponse(error: unknown, requestId: string, req?: Request, routePath?: string): Response {
  if (error instanceof DomainError) {
    return problemResponse(
      problemBody(error.code, error.detail, {
        operation: error.operation,
        errors: error.errors,
        extra: error.extra,
        requestId,
      }),
      error.headers,
    );
  }
  const codes = errorCodes(error);
  const inputSqlstate = codes.find((code) => INPUT_SQLSTATE.test(code));
  if (inputSqlstate) {
    // The client's fault, so a 400; but zod let the value through, so the schema may want a bound.
    log.warn(
      { requestId, sqlstate: inputSqlstate, method: req?.method, route: routePath },
      'database refused a value of the request',
    );
    return problemResponse(
      problemBody('VALIDATION_ERROR', 'A value in the request is out of range or malformed.', { requestId }),
    );
  }
  // A statement prepared before a migration changed its result (db/client.ts): it did not run, a retry re-prepares it.
  if (
    codes.some((code) => UNAVAILABLE_SQLSTATES.test(code) || UNAVAILABLE_ERRNOS.has(code)) ||
    isStaleCachedPlan(error)
  ) {
    log.error({ err: error, requestId }, 'database unavailable');
    return problemResponse(
      problemBody('SERVICE_UNAVAILABLE', 'The service is briefly unavailable; try again shortly.', { requestId }),
      { 'Retry-After': '5' },
    );
  }
  log.error({ err: error, requestId, method: req?.method, url: req?.url }, 'unhandled error');
  return problemResponse(
    problemBody('INTERNAL_ERROR', `Something went wrong on our side. Quote request id ${requestId} if you report it.`, {
      requestId,
    }),
  );
}
