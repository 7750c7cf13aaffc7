import { DomainError } from '@/lib/errors';
import type { AuthMode } from '@/lib/http/request-auth';
import type { RouteContext, RouteHandler, RouteOptions, route } from '@/lib/http/route';
import { plainJsonRoute } from '@/lib/protocols/smsgate-app/route';

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
  return plainJsonRoute(options, handler);
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
