import { randomUUID } from 'node:crypto';
import { POST as benchBare } from '@/app/api/bench/bare/route';
import { GET as appEvents } from '@/app/api/mobile/v1/events/route';
import { POST as claimOutbox } from '@/app/api/v1/device/outbox/claim/route';
import { ROUTES } from '@/app/route-index';
import { getDb, withRequestDeadline } from '@/db';
import { principalForKey } from '@/lib/auth/key-lookup';
import { config } from '@/lib/config';
import { readSetting } from '@/lib/config/env';
import { rateLimited } from '@/lib/errors';
import { guardedByRoute } from '@/lib/http/front-door';
import { presentedKey } from '@/lib/http/request-auth';
import { errorResponse } from '@/lib/http/route';
import { httpAnswered, surfaceOf } from '@/lib/metrics/http';
import { asAppAnswer } from '@/lib/protocols/smsgate-app/route';
import type { DirectHandler, DirectRoute, DirectRouter } from '@/lib/runtime/lifecycle';
import { phoneAdmission } from './phone-admission';

/**
 * The API routes `npm start`'s server calls itself (scripts/serve.mjs), rather than through Next's
 * router (ADR 0014): every module of the route index (app/route-index.ts, generated from app/) under
 * the paths route() guards itself (lib/http/front-door.ts `guardedByRoute`), by method and path,
 * with the integrator API at /3rdparty/v1 as well (next.config.ts's rewrite). The same exported
 * handlers, through the same route() wrapper, with the same answers; Next's router cost more per
 * request than most routes' own work. What the index does not know (pages, Next's assets, next-auth,
 * the dev inbox, which proxy.ts guards, the catch-alls' 404s, a method a module does not export,
 * HEAD and OPTIONS that Next derives) goes on to Next.
 *
 * The routes whose requests stay open (a phone's long-polling claim, the SMSGate app's event stream)
 * are why this lane began (ADR 0013): Next keeps about 80 KB of its own per request it routes for as
 * long as the answer is open. Opening them is paced (PHONE_CONNECTS_PER_S), and at most
 * PHONE_SETUPS_MAX are being set up at once (lib/server/phone-admission.ts): when every phone
 * reconnects at once (the instance restarted), those past the rate, or past what the database path
 * is still setting up, are told to come back in 1–10 s (429 with Retry-After) before their claim's or
 * stream's database work, rather than all queueing for the database together and timing out as
 * 503s. Only a device's own key spends that budget: the key is looked up first (from the key cache, or in one statement with the other phones connecting
 * at that moment), and a request with no key, an unknown or revoked one, or an account key goes on
 * to the route, which refuses it (401, 403) without more work. A flood of wrong keys then cannot turn
 * real phones away.
 */
export function directRoutes(): DirectRouter {
  const admission = phoneAdmission(config.phoneConnectsPerSecond);
  const paced =
    (pathname: string, handler: DirectHandler, plainJson = false): DirectHandler =>
    (req, context) =>
      // One deadline for the key's lookup and the route's work (REQUEST_DEADLINE_MS).
      withRequestDeadline(async () => {
        // A lookup that fails (the database is down) spends the budget; the route answers the failure.
        if (!(await isDeviceKey(req).catch(() => true))) return handler(req, context);
        const retryAfter = admission.admit();
        if (retryAfter === undefined) return admission.setUp(() => handler(req, context));
        const refused = errorResponse(
          rateLimited(retryAfter, 'Too many phones are connecting to this server at once. Try again in a few seconds.'),
          randomUUID(),
          req,
        );
        httpAnswered(surfaceOf(pathname), pathname, req.method, refused.status, 0);
        return plainJson ? asAppAnswer(refused) : refused;
      });
  const table = routeTable(ROUTES);
  const claim = paced('/api/v1/device/outbox/claim', claimOutbox);
  const events = paced('/api/mobile/v1/events', appEvents, true);
  table.add('POST', '/api/v1/device/outbox/claim', claim);
  table.add('GET', '/api/mobile/v1/events', events);
  // Phones' connections that stay open: the shutdown closes them with their answers (scripts/serve.mjs).
  const phoneConnections = new Set([claim, events]);
  // The benchmark's bare handler on this lane, beside its Next route (/api/bench/bare): the lane's own cost.
  if (readSetting('BENCH')) table.add('POST', '/api/bench/direct', benchBare);
  return (method, pathname) => {
    const route = table.match(method, pathname);
    return route && phoneConnections.has(route.handler) ? { ...route, phoneConnection: true } : route;
  };
}

/**
 * Whether the request bears the key of a device that is not revoked (the route checks the rest). The
 * lookup is patient: it opens a phone's connection, which then waits seconds, and its key is seldom
 * still cached from the last one. The route's own lookup finds what this one cached.
 */
async function isDeviceKey(req: Request): Promise<boolean> {
  const key = presentedKey(req);
  if (!key) return false;
  return (await principalForKey(await getDb(), key, { patient: true }))?.kind === 'device';
}

/** The methods a route module may export that the lane serves (HEAD and OPTIONS only when exported). */
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;

type Node = {
  statics: Map<string, Node>;
  /** A `{name}` segment (one per level: Next refuses two names at one level). */
  dynamic?: { name: string; node: Node };
  handlers: Map<string, DirectHandler>;
};

const newNode = (): Node => ({ statics: new Map(), handlers: new Map() });

export type RouteTable = {
  add: (method: string, path: string, handler: DirectHandler) => void;
  match: (method: string, pathname: string) => DirectRoute | undefined;
};

/**
 * The route index as a tree of path segments, matched as Next's router matches: by path alone, at
 * each segment a static name before a `{param}`, backtracking when the rest does not match; a param
 * is its segment percent-decoded. Only the index's paths that route() guards itself are in it (the proxy
 * handles the others, on Next's lane).
 */
export function routeTable(routes: ReadonlyArray<{ path: string; module: Record<string, unknown> }>): RouteTable {
  const root = newNode();
  const add = (method: string, path: string, handler: DirectHandler) => {
    let node = root;
    for (const segment of path.split('/').slice(1)) {
      const param = /^\{([^}]+)\}$/.exec(segment)?.[1];
      if (param === undefined) {
        const next = node.statics.get(segment) ?? newNode();
        node.statics.set(segment, next);
        node = next;
      } else {
        if (node.dynamic && node.dynamic.name !== param) {
          throw new Error(`${path}: {${param}} beside {${node.dynamic.name}} at the same level`);
        }
        node.dynamic ??= { name: param, node: newNode() };
        node = node.dynamic.node;
      }
    }
    node.handlers.set(method, handler);
  };
  for (const { path, module } of routes) {
    if (!guardedByRoute(path.replace(/\{[^}]+\}/g, 'x'))) continue;
    for (const method of METHODS) {
      const handler = module[method];
      if (typeof handler === 'function') add(method, path, handler as DirectHandler);
    }
  }

  // The route file a path names, as Next finds it (by path alone: a method the file does not export is
  // Next's 405), and its params' values, deepest first.
  const walk = (node: Node, segments: string[], at: number, found: Array<[string, string]>): Node | undefined => {
    if (at === segments.length) return node.handlers.size > 0 ? node : undefined;
    const segment = segments[at] as string;
    const byName = node.statics.get(segment);
    const statically = byName && walk(byName, segments, at + 1, found);
    if (statically || !node.dynamic) return statically;
    const dynamically = walk(node.dynamic.node, segments, at + 1, found);
    if (dynamically) found.push([node.dynamic.name, segment]);
    return dynamically;
  };

  const match = (method: string, pathname: string): DirectRoute | undefined => {
    // Next serves the integrator API at /3rdparty/v1 too (next.config.ts); the handler sees the path asked for.
    const path = pathname.startsWith('/3rdparty/v1/') ? `/api${pathname}` : pathname;
    const segments = decodedSegments(path);
    if (!segments) return undefined;
    const found: Array<[string, string]> = [];
    const handler = walk(root, segments, 0, found)?.handlers.get(method);
    // In the order of their segments, as Next gives them (lib/http/route.ts `routePattern` reads them so).
    return handler && { handler, params: Object.fromEntries(found.reverse()) };
  };
  return { add, match };
}

/**
 * The path's segments after the leading `/`, each percent-decoded as Next decodes them; undefined
 * for a path this lane leaves to Next: one it would redirect (a trailing slash, an empty segment),
 * malformed percent-encoding, or an encoded `/`.
 */
function decodedSegments(pathname: string): string[] | undefined {
  if (!pathname.startsWith('/') || pathname.length === 1 || pathname.endsWith('/')) return undefined;
  const raw = pathname.slice(1).split('/');
  if (!pathname.includes('%')) return raw.includes('') ? undefined : raw;
  const decoded: string[] = [];
  for (const segment of raw) {
    if (segment === '') return undefined;
    let one: string;
    try {
      one = decodeURIComponent(segment);
    } catch {
      return undefined;
    }
    if (one.includes('/')) return undefined;
    decoded.push(one);
  }
  return decoded;
}
