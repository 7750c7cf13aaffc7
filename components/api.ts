'use client';

/** A problem+json answer of the API, thrown by `api()` so queries and forms can show it. */
export class ApiProblem extends Error {
  readonly status: number;
  readonly code: string;
  readonly errors: Array<{ path: string; message: string }>;
  readonly body: Record<string, unknown>;

  constructor(status: number, body: Record<string, unknown>) {
    super(typeof body.detail === 'string' ? body.detail : `Request failed (${status})`);
    this.status = status;
    this.code = typeof body.code === 'string' ? body.code : 'UNKNOWN';
    this.errors = Array.isArray(body.errors) ? (body.errors as ApiProblem['errors']) : [];
    this.body = body;
  }

  /** The message for one form field, if the API named it. */
  fieldError(path: string): string | undefined {
    return this.errors.find((e) => e.path === path)?.message;
  }
}

export type Page<T> = { data: T[]; next_cursor: string | null };

/**
 * Calls the same /api/v1 routes an integrator uses, with the session cookie as the credential
 * (same-origin, so the Origin check passes).
 */
export async function api<T>(path: string, options: { method?: string; body?: unknown } = {}): Promise<T> {
  const res = await fetch(path, {
    method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
    credentials: 'same-origin',
    headers: options.body === undefined ? {} : { 'content-type': 'application/json' },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = { detail: text.slice(0, 200) };
  }
  if (!res.ok) throw new ApiProblem(res.status, (parsed ?? {}) as Record<string, unknown>);
  return parsed as T;
}

export function errorMessage(error: unknown): string {
  if (error instanceof ApiProblem) return error.message;
  if (error instanceof Error) return error.message;
  return 'Something went wrong.';
}
