/**
 * The operation a code was raised by, where one code answers differently by operation: a send
 * its group cannot pay for is 402 INSUFFICIENT_CREDITS, a transfer the source cannot cover 400.
 */
export type ErrorOperation = 'send' | 'transfer';

type CatalogueEntry = { status: number; title: string; statusByOperation?: Partial<Record<ErrorOperation, number>> };

/**
 * The error catalogue: every machine-readable code the API answers, with its status and title.
 * Domain functions throw `DomainError` naming a code (and, where it matters, the operation);
 * only this table says which HTTP status that is. The route wrapper turns the error into
 * problem+json, and the OpenAPI document lists the same codes.
 */
export const ERROR_CODES = {
  VALIDATION_ERROR: { status: 400, title: 'Validation failed' },
  DEFAULT_GROUP_LOCKED: { status: 400, title: 'The default group cannot be modified' },
  INVALID_CODE: { status: 400, title: 'Invalid code' },
  INSUFFICIENT_CREDITS: { status: 402, title: 'Insufficient credits', statusByOperation: { transfer: 400 } },
  UNAUTHENTICATED: { status: 401, title: 'Unauthenticated' },
  FORBIDDEN: { status: 403, title: 'Forbidden' },
  WRONG_KEY_KIND: { status: 403, title: 'Wrong kind of key' },
  DEVICE_NOT_ACTIVATED: { status: 403, title: 'Device not activated' },
  PLAN_LIMIT_REACHED: { status: 403, title: 'Plan limit reached' },
  NOT_FOUND: { status: 404, title: 'Not found' },
  GROUP_NOT_FOUND: { status: 404, title: 'Group not found' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method not allowed' },
  CONFLICT: { status: 409, title: 'Conflict' },
  DUPLICATE_REQUEST: { status: 409, title: 'Duplicate request' },
  DUPLICATE_PHONE: { status: 409, title: 'Duplicate phone' },
  DUPLICATE_NAME: { status: 409, title: 'Duplicate name' },
  ALREADY_A_MEMBER: { status: 409, title: 'Already a member' },
  INVALID_TRANSITION: { status: 409, title: 'Invalid transition' },
  NO_ONLINE_PHONE: { status: 409, title: 'No online phone in the group' },
  MESSAGE_NOT_CANCELLABLE: { status: 409, title: 'Message not cancellable' },
  PHONE_NOT_CONNECTED: { status: 409, title: 'Phone not connected' },
  RECIPIENT_OPTED_OUT: { status: 422, title: 'Recipient opted out' },
  RECIPIENT_COUNTRY_NOT_ALLOWED: { status: 422, title: 'Recipient country not allowed' },
  RECIPIENT_QUOTA_REACHED: { status: 422, title: 'Recipient quota reached' },
  SEARCH_TOO_BROAD: { status: 422, title: 'Search too broad' },
  MISDIRECTED_REQUEST: { status: 421, title: 'Misdirected request' },
  SIM_MISMATCH: { status: 409, title: "The phone's SIM does not match its number" },
  AUTH_METHOD_RETIRED: { status: 410, title: 'Authentication method retired' },
  CODE_EXPIRED: { status: 410, title: 'Code expired' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'Payload too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Unsupported media type' },
  RATE_LIMITED: { status: 429, title: 'Too many requests' },
  QUEUE_FULL: { status: 429, title: 'Queue full' },
  INTERNAL_ERROR: { status: 500, title: 'Internal server error' },
  NOT_IMPLEMENTED: { status: 501, title: 'Not implemented' },
  SERVICE_UNAVAILABLE: { status: 503, title: 'Service unavailable' },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The HTTP status of `code`, raised by `operation`. */
export function statusOf(code: ErrorCode, operation?: ErrorOperation): number {
  const entry: CatalogueEntry = ERROR_CODES[code];
  return (operation && entry.statusByOperation?.[operation]) || entry.status;
}

export type FieldError = { path: string; message: string };

export type DomainErrorOptions = {
  /** The operation refused, for the codes whose status depends on it (see ERROR_CODES). */
  operation?: ErrorOperation;
  errors?: FieldError[];
  /** Extra members of the problem body, e.g. `message_id` on DUPLICATE_REQUEST. */
  extra?: Record<string, unknown>;
  headers?: Record<string, string>;
};

/**
 * Marks a DomainError whichever copy of this module made it: Next evaluates lib/ once per bundle, and
 * an error thrown by an implementation another bundle registered (lib/registry.ts) must still be
 * recognised by `instanceof DomainError` here, or its 4xx would become a 500.
 */
const DOMAIN_ERROR = Symbol.for('simgate.DomainError');

export class DomainError extends Error {
  static [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[DOMAIN_ERROR] === true;
  }

  readonly [DOMAIN_ERROR] = true;
  readonly code: ErrorCode;
  readonly operation?: ErrorOperation;
  readonly detail: string;
  readonly errors?: FieldError[];
  readonly extra?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, detail: string, options: DomainErrorOptions = {}) {
    super(`${code}: ${detail}`);
    this.name = 'DomainError';
    this.code = code;
    this.operation = options.operation;
    this.detail = detail;
    this.errors = options.errors;
    this.extra = options.extra;
    this.headers = options.headers;
  }

  /** The catalogue's status for this error (what the route wrapper answers). */
  get status(): number {
    return statusOf(this.code, this.operation);
  }
}

export function validationError(path: string, message: string, detail?: string): DomainError {
  return new DomainError('VALIDATION_ERROR', detail ?? `${path}: ${message}`, { errors: [{ path, message }] });
}

export function notFound(what: string): DomainError {
  return new DomainError('NOT_FOUND', `${what} not found.`);
}

export function rateLimited(retryAfterSeconds: number, detail: string): DomainError {
  const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
  return new DomainError('RATE_LIMITED', detail, {
    headers: { 'Retry-After': String(seconds) },
    extra: { retry_after: seconds },
  });
}
