import type { OpenAPIRegistry, RouteConfig } from '@asteasolutions/zod-to-openapi';
import { ERROR_CODES, type ErrorCode } from '@/lib/errors';
import { z } from '@/lib/zod';

export const problemSchema = z
  .object({
    type: z.literal('about:blank'),
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

export type ApiRouteSpec = {
  method: 'get' | 'post' | 'patch' | 'put' | 'delete';
  /** OpenAPI path, e.g. `/api/v1/phones/{id}`. */
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  auth: 'none' | 'account' | 'device' | 'any';
  body?: z.ZodType;
  query?: z.ZodObject;
  params?: z.ZodObject;
  response: { status: number; description: string; schema?: z.ZodType; headers?: Record<string, string> };
  /** The route's own error codes; authentication, validation and body errors are added here. */
  errors?: ErrorCode[];
  /** Overrides the security the auth mode implies (the SMSGate app sends its token as a Bearer). */
  security?: RouteConfig['security'];
  /** Media type of error answers: problem+json, or plain JSON where a client reads nothing else. */
  errorMediaType?: 'application/problem+json' | 'application/json';
};

const SECURITY: Record<ApiRouteSpec['auth'], RouteConfig['security']> = {
  none: [],
  account: [{ AccountKey: [] }, { Session: [] }],
  device: [{ DeviceKey: [] }],
  any: [{ AccountKey: [] }, { DeviceKey: [] }, { Session: [] }],
};

function impliedErrors(spec: ApiRouteSpec): ErrorCode[] {
  const codes: ErrorCode[] = [...(spec.errors ?? [])];
  if (spec.auth !== 'none') codes.push('UNAUTHENTICATED', 'RATE_LIMITED');
  if (spec.auth === 'account' || spec.auth === 'device') codes.push('WRONG_KEY_KIND');
  if (spec.body || spec.query || spec.params) codes.push('VALIDATION_ERROR');
  if (spec.body) codes.push('PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE');
  codes.push('INTERNAL_ERROR');
  return [...new Set(codes)];
}

/** Registers one operation with its success answer and a problem answer per error status. */
export function defineRoute(registry: OpenAPIRegistry, spec: ApiRouteSpec): void {
  const responses: RouteConfig['responses'] = {
    [spec.response.status]: {
      description: spec.response.description,
      ...(spec.response.schema ? { content: { 'application/json': { schema: spec.response.schema } } } : {}),
    },
  };
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of impliedErrors(spec)) {
    const status = code === 'INSUFFICIENT_CREDITS' && spec.path.includes('/credits/') ? 400 : ERROR_CODES[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, codes] of byStatus) {
    responses[status] = {
      description: codes.map((code) => `\`${code}\``).join(', '),
      content: { [spec.errorMediaType ?? 'application/problem+json']: { schema: problemSchema } },
    };
  }
  registry.registerPath({
    method: spec.method,
    path: spec.path,
    summary: spec.summary,
    description: spec.description,
    tags: spec.tags,
    security: spec.security ?? SECURITY[spec.auth],
    request: {
      ...(spec.params ? { params: spec.params } : {}),
      ...(spec.query ? { query: spec.query } : {}),
      ...(spec.body ? { body: { required: true, content: { 'application/json': { schema: spec.body } } } } : {}),
    },
    responses,
  });
}

/** `{ data: [...], next_cursor }`, the shape of every list. */
export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), next_cursor: z.string().nullable() });
}
