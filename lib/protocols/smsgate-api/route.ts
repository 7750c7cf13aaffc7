import type { AuthMode } from '@/lib/http/authenticate';
import { type RouteContext, type RouteHandler, type RouteOptions, route } from '@/lib/http/route';
import { attachSpec } from '@/lib/openapi/define';
import { asAppAnswer } from '@/lib/protocols/smsgate-app/route';

type Schema = Parameters<typeof route>[0]['body'];

/**
 * The route wrapper of SMSGate's integrator API (/api/3rdparty/v1, also /3rdparty/v1): the one
 * authenticate → parse → run → respond, with errors as SMSGate's clients read them
 * (`{ "message": … }` plus our `code`, application/json). Bodies are parsed leniently: the
 * official clients send fields Simgate does not know.
 */
export function integratorRoute<
  M extends AuthMode,
  B extends Schema = undefined,
  Q extends Schema = undefined,
  P extends Schema = undefined,
>(options: RouteOptions<M, B, Q, P>, handler: (ctx: RouteContext<M, B, Q, P>) => Promise<unknown>): RouteHandler {
  const inner = route(options, handler);
  const run: RouteHandler = async (req, context) => asAppAnswer(await inner(req, context));
  return attachSpec(run, { ...options, errorMediaType: 'application/json' });
}
