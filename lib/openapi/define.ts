import type { OpenAPIRegistry, RouteConfig } from '@asteasolutions/zod-to-openapi';
import { ERROR_CODES, type ErrorCode } from '@/lib/errors';
import type { AuthMode } from '@/lib/http/request-auth';
import { routeRule } from '@/lib/members/route-areas';
import { z } from '@/lib/zod';
import type { TagName } from './tags';

export const problemSchema = z
  .object({
    type: z.string().openapi({
      example: '/docs/errors#VALIDATION_ERROR',
      description: 'Where the code is explained: `/docs/errors#<code>`.',
    }),
    title: z.string(),
    status: z.number().int(),
    code: z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]),
    detail: z.string(),
    errors: z
      .array(z.object({ path: z.string().openapi({ example: 'recipients.3' }), message: z.string() }))
      .optional()
      .openapi({ description: 'One entry per invalid field.' }),
    request_id: z.string().optional(),
  })
  .catchall(z.unknown())
  .openapi('Problem', { description: 'RFC 9457 problem details. `code` is machine-readable.' });

/** An error code the route answers; with `status` where this route answers it with another than the catalogue's. */
export type DocumentedError = ErrorCode | { code: ErrorCode; status: number };

/** What a route says about itself beyond what it validates: the words, and its answers. */
export type OperationDoc = {
  /** camelCase, verb first (`sendMessage`, `listPhones`): the method name of generated SDKs. */
  operationId: string;
  summary: string;
  description?: string;
  tags: TagName[];
  /**
   * The success answer; its status is the route's `status` (200 with a schema, 204 without).
   * Absent for a route that never succeeds (a retired one, which must then be `deprecated`).
   */
  response?: {
    description: string;
    schema?: z.ZodType;
    mediaType?: 'application/json' | 'text/event-stream' | 'text/csv';
  };
  /** Other success answers, with their own status (a dry run's 200 beside a send's 201). */
  otherResponses?: Array<{ status: number; description: string; schema: z.ZodType }>;
  /** The route's own error codes; authentication, validation and body errors are added from its options. */
  errors?: DocumentedError[];
  deprecated?: boolean;
  /** A body the handler reads itself (its raw bytes are signed), so the wrapper does not parse it. */
  rawBody?: z.ZodType;
  /** The media type of `rawBody` (default application/json). */
  rawBodyMediaType?: 'application/json' | 'text/csv';
  /** A query the handler validates itself, after a check that must answer first (the dev inbox's 404). */
  rawQuery?: z.ZodType;
  /** Named schemas that a schema of this operation refers to by `$ref` only. */
  components?: Record<string, z.ZodType>;
};

/** Everything a route registers about itself: the options it runs with, and its documentation. */
export type OperationSpec = {
  auth: AuthMode;
  body?: z.ZodType;
  query?: z.ZodType;
  params?: z.ZodType;
  status?: number;
  doc?: OperationDoc;
  /** Overrides the security the auth mode implies (the SMSGate app sends its token as a Bearer). */
  security?: RouteConfig['security'];
  /** Media type of error answers: problem+json, or plain JSON where a client reads nothing else. */
  errorMediaType?: 'application/problem+json' | 'application/json';
  /** The schema of error answers where a surface answers in another's shape (Twilio's). */
  errorSchema?: z.ZodType;
  /** `form`: the body is application/x-www-form-urlencoded (Twilio's surface), not JSON. */
  bodyFormat?: 'json' | 'form';
};

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A spec whose route is documented: the only kind the document takes. */
export type DocumentedSpec = OperationSpec & { doc: OperationDoc };

const specs = new WeakMap<object, OperationSpec>();

/** Called by the route wrappers: the handler carries its own documentation. */
export function attachSpec<H extends object>(handler: H, spec: OperationSpec): H {
  specs.set(handler, spec);
  return handler;
}

export function specOf(handler: unknown): OperationSpec | undefined {
  return typeof handler === 'function' ? specs.get(handler) : undefined;
}

const SECURITY: Record<AuthMode, RouteConfig['security']> = {
  none: [],
  account: [{ AccountKey: [] }, { Session: [] }],
  device: [{ DeviceKey: [] }],
  any: [{ AccountKey: [] }, { DeviceKey: [] }, { Session: [] }],
  integrator: [{ IntegratorBasic: [] }, { IntegratorBearer: [] }],
  twilio: [{ TwilioBasic: [] }],
};

/** The route's own errors, then those its options imply, each with the status this route answers it with. */
function documentedErrors(spec: DocumentedSpec): Array<{ code: ErrorCode; status: number }> {
  const own = (spec.doc.errors ?? []).map((error) =>
    typeof error === 'string' ? { code: error, status: ERROR_CODES[error].status } : error,
  );
  const implied: ErrorCode[] = [];
  if (spec.auth !== 'none') implied.push('UNAUTHENTICATED', 'RATE_LIMITED');
  if (spec.auth === 'account' || spec.auth === 'device') implied.push('WRONG_KEY_KIND');
  // A JWT without the operation's scope (lib/protocols/smsgate-api/scopes.ts).
  if (spec.auth === 'integrator') implied.push('FORBIDDEN');
  // A caller whose role may not (lib/members/route-areas.ts); Twilio's Auth Token carries no role.
  if (spec.auth !== 'twilio' && routeRule(spec.doc.operationId)) implied.push('FORBIDDEN');
  if (spec.body || spec.query || spec.params || spec.doc.rawQuery) implied.push('VALIDATION_ERROR');
  if (spec.body || spec.doc.rawBody) implied.push('PAYLOAD_TOO_LARGE');
  if (spec.body) implied.push('UNSUPPORTED_MEDIA_TYPE');
  implied.push('INTERNAL_ERROR');
  const errors = [...own];
  for (const code of implied) {
    if (!errors.some((error) => error.code === code)) errors.push({ code, status: ERROR_CODES[code].status });
  }
  return errors;
}

function successResponse(spec: DocumentedSpec): RouteConfig['responses'] {
  const { response } = spec.doc;
  if (!response) return {};
  const status = spec.status ?? (response.schema ? 200 : 204);
  const content = response.schema ? { [response.mediaType ?? 'application/json']: { schema: response.schema } } : {};
  const responses: RouteConfig['responses'] = {
    [status]: { description: response.description, ...(response.schema ? { content } : {}) },
  };
  for (const other of spec.doc.otherResponses ?? []) {
    responses[other.status] = {
      description: other.description,
      content: { 'application/json': { schema: other.schema } },
    };
  }
  return responses;
}

function requestOf(spec: DocumentedSpec): RouteConfig['request'] {
  const body = spec.body ?? spec.doc.rawBody;
  const query = spec.query ?? spec.doc.rawQuery;
  return {
    ...(spec.params ? { params: spec.params as z.ZodObject } : {}),
    ...(query ? { query: query as z.ZodObject } : {}),
    ...(body
      ? {
          body: {
            required: !body.safeParse(undefined).success,
            content: {
              [spec.bodyFormat === 'form'
                ? 'application/x-www-form-urlencoded'
                : (spec.doc.rawBodyMediaType ?? 'application/json')]: { schema: body },
            },
          },
        }
      : {}),
  };
}

/** Registers one route's operation: its request schemas, its success answer and a problem answer per error status. */
export function registerOperation(
  registry: OpenAPIRegistry,
  method: HttpMethod,
  path: string,
  spec: DocumentedSpec,
): void {
  const responses = successResponse(spec);
  const byStatus = new Map<number, ErrorCode[]>();
  for (const { code, status } of documentedErrors(spec)) byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  for (const [status, codes] of byStatus) {
    responses[status] = {
      description: codes.map((code) => `\`${code}\``).join(', '),
      content: { [spec.errorMediaType ?? 'application/problem+json']: { schema: spec.errorSchema ?? problemSchema } },
    };
  }
  const { doc } = spec;
  for (const [name, schema] of Object.entries(doc.components ?? {})) registry.register(name, schema);
  registry.registerPath({
    method,
    path,
    operationId: doc.operationId,
    summary: doc.summary,
    description: doc.description,
    tags: doc.tags,
    ...(doc.deprecated ? { deprecated: true } : {}),
    security: spec.security ?? SECURITY[spec.auth],
    request: requestOf(spec),
    responses,
  });
}

/** `{ data: [...], next_cursor }`, the shape of every list. */
export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), next_cursor: z.string().nullable() });
}
