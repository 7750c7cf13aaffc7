import { ERROR_CODES, type ErrorCode, type ErrorOperation, type FieldError, statusOf } from '@/lib/errors';
import { heldResponse } from './held-body';

/** Where a code is explained: the API reference's error page, generated from the catalogue (app/docs/errors). */
export function problemType(code: ErrorCode): string {
  return `/docs/errors#${code}`;
}

export type Problem = {
  type: string;
  title: string;
  status: number;
  code: ErrorCode;
  detail: string;
  errors?: FieldError[];
  request_id?: string;
  [extra: string]: unknown;
};

export type ProblemOptions = {
  /** The operation that raised `code`: the catalogue's status for it is the answer's. */
  operation?: ErrorOperation;
  /** A status decided by the transport itself, not by the catalogue. */
  status?: number;
  errors?: FieldError[];
  extra?: Record<string, unknown>;
  requestId?: string;
};

export function problemBody(code: ErrorCode, detail: string, options: ProblemOptions = {}): Problem {
  const body: Problem = {
    ...options.extra,
    type: problemType(code),
    title: ERROR_CODES[code].title,
    status: options.status ?? statusOf(code, options.operation),
    code,
    detail,
  };
  if (options.errors?.length) body.errors = options.errors;
  if (options.requestId) body.request_id = options.requestId;
  return body;
}

export function problemResponse(problem: Problem, headers: Record<string, string> = {}): Response {
  return heldResponse(JSON.stringify(problem), {
    status: problem.status,
    headers: { ...headers, 'content-type': 'application/problem+json' },
  });
}
