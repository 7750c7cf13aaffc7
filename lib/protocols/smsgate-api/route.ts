import type { AccountPrincipal } from '@/lib/auth/principal';
import { DomainError } from '@/lib/errors';
import type { AuthMode } from '@/lib/http/request-auth';
import type { RouteContext, RouteHandler, RouteOptions, route } from '@/lib/http/route';
import { API_CATALOG_LINK } from '@/lib/openapi/api-catalog';
import { attachSpec, specOf } from '@/lib/openapi/define';
// The `integrator` auth mode this wrapper's routes take.
import '@/lib/protocols/register';
import { plainJsonRoute } from '@/lib/protocols/smsgate-app/route';
import { OPERATION_SCOPES, requireScope } from './scopes';

type Schema = Parameters<typeof route>[0]['body'];

/**
 * The route wrapper of SMSGate's integrator API (/api/3rdparty/v1, also /3rdparty/v1): the one
 * authenticate → parse → run → respond, with errors as SMSGate's clients read them
 * (`{ "message": … }` plus our `code`, application/json). Bodies are parsed leniently: the
 * official clients send fields Simgate does not know. A JWT caller needs the operation's scope
 * (lib/protocols/smsgate-api/scopes.ts), which the documentation names.
 */
export function integratorRoute<
  M extends AuthMode,
  B extends Schema = undefined,
  Q extends Schema = undefined,
  P extends Schema = undefined,
>(options: RouteOptions<M, B, Q, P>, handler: (ctx: RouteContext<M, B, Q, P>) => Promise<unknown>): RouteHandler {
  const operationId = options.doc?.operationId;
  const scope = operationId ? OPERATION_SCOPES[operationId] : undefined;
  const doc = options.doc && {
    ...options.doc,
    description: [
      options.doc.description,
      scope ? `JWT scope: \`${scope}\`.` : options.auth === 'integrator' ? 'Takes an account key, not a JWT.' : '',
    ]
      .filter(Boolean)
      .join(' '),
  };
  const inner = plainJsonRoute({ ...options, doc }, async (ctx) => {
    if (options.auth === 'integrator') requireScope(ctx.principal as AccountPrincipal, operationId);
    return handler(ctx);
  });
  // Every answer points at the API catalog, as the reference's do (RFC 9727 section 3).
  const run: RouteHandler = async (req, context) => {
    const response = await inner(req, context);
    response.headers.set('link', API_CATALOG_LINK);
    return response;
  };
  return attachSpec(run, specOf(inner) as Parameters<typeof attachSpec>[1]);
}

/**
 * An operation of the reference that Simgate does not offer: 501 with `message` saying where to
 * look instead, as the reference answers for a feature it has off.
 */
export function notAvailableRoute(operation: {
  operationId: string;
  summary: string;
  /** What to use instead: the documentation's text and the error's message. */
  instead: string;
}): RouteHandler {
  return integratorRoute(
    {
      auth: 'integrator',
      doc: {
        operationId: operation.operationId,
        summary: `${operation.summary} (SMSGate): not available`,
        description: `Answers 501, as the reference does with the feature off. ${operation.instead}`,
        tags: ['SMSGate integrator API'],
        response: { description: 'Never: this answers 501.' },
        errors: ['NOT_IMPLEMENTED'],
      },
    },
    async () => {
      throw new DomainError(
        'NOT_IMPLEMENTED',
        `${operation.summary} is not available on Simgate. ${operation.instead}`,
      );
    },
  );
}
