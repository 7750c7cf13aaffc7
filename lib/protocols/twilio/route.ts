import type { AuthMode } from '@/lib/http/request-auth';
import { type RouteContext, type RouteHandler, type RouteOptions, route } from '@/lib/http/route';
import { attachSpec } from '@/lib/openapi/define';
// The `twilio` auth mode this wrapper's routes take.
import '@/lib/protocols/register';
import { twilioBodyOf } from './errors';
import { errorBody } from './schemas';

type Schema = Parameters<typeof route>[0]['body'];

/**
 * The route wrapper of the Twilio-compatible API (/2010-04-01/…): the one authenticate → parse →
 * run → respond of route(), with form-encoded bodies, and errors answered in Twilio's body
 * `{ code, message, more_info, status }` (application/json), which the official clients read into
 * RestException. Body and query objects are not strict: unknown parameters are ignored, as Twilio does.
 */
export function twilioRoute<
  M extends AuthMode,
  B extends Schema = undefined,
  Q extends Schema = undefined,
  P extends Schema = undefined,
>(options: RouteOptions<M, B, Q, P>, handler: (ctx: RouteContext<M, B, Q, P>) => Promise<unknown>): RouteHandler {
  const withForm = { ...options, bodyFormat: 'form' as const };
  const inner = route(withForm, handler);
  const run: RouteHandler = async (req, context) => asTwilioAnswer(await inner(req, context));
  return attachSpec(run, { ...withForm, errorMediaType: 'application/json', errorSchema: errorBody });
}

/** A problem+json error as Twilio's error body, same status and headers. */
export async function asTwilioAnswer(response: Response): Promise<Response> {
  if (!response.headers.get('content-type')?.startsWith('application/problem+json')) return response;
  const problem = (await response.json()) as Parameters<typeof twilioBodyOf>[0];
  const headers = new Headers(response.headers);
  headers.set('content-type', 'application/json');
  return new Response(JSON.stringify(twilioBodyOf(problem, response.status)), { status: response.status, headers });
}
