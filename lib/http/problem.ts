import { ERROR_CODES, type ErrorCode, type FieldError } from '@/lib/errors';

export type Problem = {
  type: 'about:blank';
  title: string;
  status: number;
  code: ErrorCode;
  detail: string;
  errors?: FieldError[];
  request_id?: string;
  [extra: string]: unknown;
};

export function problemBody(
  code: ErrorCode,
  detail: string,
  options: { status?: number; errors?: FieldError[]; extra?: Record<string, unknown>; requestId?: string } = {},
): Problem {
  const body: Problem = {
    ...options.extra,
    type: 'about:blank',
    title: ERROR_CODES[code].title,
    status: options.status ?? ERROR_CODES[code].status,
    code,
    detail,
  };
  if (options.errors?.length) body.errors = options.errors;
  if (options.requestId) body.request_id = options.requestId;
  return body;
}

export function problemResponse(problem: Problem, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(problem), {
    status: problem.status,
    headers: { ...headers, 'content-type': 'application/problem+json' },
  });
}
