import type { AuthMode } from '@/lib/http/request-auth';
import { type RouteContext, type RouteHandler, type RouteOptions, route } from '@/lib/http/route';
import { attachSpec } from '@/lib/openapi/define';

type Schema = Parameters<typeof route>[0]['body'];

/**
 * The route wrapper for the SMSGate app's surface: the same authenticate → parse → run → respond,
 * answered the way the app reads it. Its HTTP client (Ktor) decodes only `application/json`, and
 * the reference server's errors are `{ "message": … }`, so an error keeps its problem fields and
 * gains `message`, as `application/json`. Its documentation says so, and names the app's Bearer token.
 */
export function mobileRoute<
  M extends AuthMode,
  B extends Schema = undefined,
  Q extends Schema = undefined,
  P extends Schema = undefined,
>(options: RouteOptions<M, B, Q, P>, handler: (ctx: RouteContext<M, B, Q, P>) => Promise<unknown>): RouteHandler {
  return plainJsonRoute(options, handler, options.auth === 'device' ? [{ AppToken: [] }] : []);
}

/**
 * `route()` answering errors as SMSGate's clients read them (plain JSON with `message`), and so
 * documented; `security` overrides the auth mode's (both SMSGate surfaces share this).
 */
export function plainJsonRoute<
  M extends AuthMode,
  B extends Schema = undefined,
  Q extends Schema = undefined,
  P extends Schema = undefined,
>(
  options: RouteOptions<M, B, Q, P>,
  handler: (ctx: RouteContext<M, B, Q, P>) => Promise<unknown>,
  security?: Parameters<typeof attachSpec>[1]['security'],
): RouteHandler {
  const inner = route(options, handler);
  const run: RouteHandler = async (req, context) => asAppAnswer(await inner(req, context));
  return attachSpec(run, { ...options, ...(security ? { security } : {}), errorMediaType: 'application/json' });
}

/** A problem+json error as SMSGate's clients read errors: `{ "message": … }` (problem fields kept), as application/json. */
export async function asAppAnswer(response: Response): Promise<Response> {
  if (!response.headers.get('content-type')?.startsWith('application/problem+json')) return response;
  const problem = (await response.json()) as { detail?: string };
  const headers = new Headers(response.headers);
  headers.set('content-type', 'application/json');
  return new Response(JSON.stringify({ message: problem.detail, ...problem }), { status: response.status, headers });
}
