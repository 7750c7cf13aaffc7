import type { z } from 'zod';
import { DomainError, type FieldError } from '@/lib/errors';
import { takeHeldBody } from '@/lib/net/held-body';

export const MAX_BODY_BYTES = 1024 * 1024;
/** Deepest nesting of objects and arrays a JSON body may have: no client of ours needs more than a few. */
export const MAX_JSON_DEPTH = 32;

function isJsonContentType(contentType: string | null): boolean {
  if (!contentType) return false;
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return mediaType === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(mediaType);
}

/** The request's body bytes, 413 past 1 MiB (or `limit`): for routes that must read exactly what was sent (signatures, files). */
export async function readCapped(
  req: Request,
  limit: { bytes: number; refusal: () => DomainError } = { bytes: MAX_BODY_BYTES, refusal: tooLarge },
): Promise<Uint8Array> {
  const declared = Number(req.headers.get('content-length') ?? Number.NaN);
  if (declared > limit.bytes) throw limit.refusal();
  // Read by the host already (npm start's direct lane), without a stream around it.
  const held = takeHeldBody(req);
  if (held !== undefined) {
    const bytes = typeof held === 'string' ? Buffer.from(held) : held;
    if (bytes.byteLength > limit.bytes) throw limit.refusal();
    return bytes;
  }
  if (!req.body) return new Uint8Array();
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read().catch(() => {
      // The client went away mid-body: its fault, not the database's, and nobody hears the answer.
      throw new DomainError('VALIDATION_ERROR', 'The request body could not be read to its end.', {
        errors: [{ path: 'body', message: 'incomplete body' }],
      });
    });
    if (done) break;
    size += value.byteLength;
    if (size > limit.bytes) {
      await reader.cancel().catch(() => {});
      throw limit.refusal();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

function tooLarge(): DomainError {
  return new DomainError('PAYLOAD_TOO_LARGE', `The body is larger than ${MAX_BODY_BYTES} bytes.`);
}

const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * 400 on `body` when the JSON text nests objects and arrays deeper than MAX_JSON_DEPTH. Read from
 * the bytes, before any parse: a document thousands of levels deep is refused in one pass, and
 * never reaches the code (or the database) that would walk it recursively. Bytes of multi-byte
 * UTF-8 characters are all 0x80 or above, so they never look like brackets or quotes.
 */
export function assertJsonDepth(bytes: Uint8Array): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      if (++depth > MAX_JSON_DEPTH) {
        throw new DomainError(
          'VALIDATION_ERROR',
          `The body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels.`,
          {
            errors: [{ path: 'body', message: `nested deeper than ${MAX_JSON_DEPTH} levels` }],
          },
        );
      }
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      depth--;
    }
  }
}

// Stateless between calls (no `stream` option), so one serves every request.
const UTF8 = new TextDecoder('utf-8', { fatal: false });

/**
 * The request's JSON body: undefined when there is none, 415 for a body that is not JSON,
 * 413 past 1 MiB, 400 for JSON that does not parse or nests deeper than MAX_JSON_DEPTH.
 */
export async function readJsonBody(req: Request): Promise<unknown> {
  const bytes = await readCapped(req);
  if (bytes.byteLength === 0) return undefined;
  if (!isJsonContentType(req.headers.get('content-type'))) {
    throw new DomainError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as JSON with Content-Type: application/json.');
  }
  assertJsonDepth(bytes);
  const text = UTF8.decode(bytes);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new DomainError('VALIDATION_ERROR', `The body is not valid JSON: ${(error as Error).message}`, {
      errors: [{ path: 'body', message: 'malformed JSON' }],
    });
  }
}

/** A form body's fields: a name given once is a string, a repeated one (Twilio's `MediaUrl`) an array. */
export type FormFields = Record<string, string | string[]>;

function isFormContentType(contentType: string | null): boolean {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() === 'application/x-www-form-urlencoded';
}

/** Most fields a form body may carry: a Twilio request has a few dozen at most. */
export const MAX_FORM_FIELDS = 1000;

/**
 * The request's application/x-www-form-urlencoded body (Twilio's surface): `{}` when there is none,
 * 415 for another media type, 413 past 1 MiB, 400 on `body` past MAX_FORM_FIELDS fields. Parsed
 * once and gathered in place, in time linear in the body.
 */
export async function readFormBody(req: Request): Promise<FormFields> {
  const bytes = await readCapped(req);
  if (bytes.byteLength === 0) return {};
  if (!isFormContentType(req.headers.get('content-type'))) {
    throw new DomainError(
      'UNSUPPORTED_MEDIA_TYPE',
      'Send the body form-encoded with Content-Type: application/x-www-form-urlencoded.',
    );
  }
  const fields: FormFields = {};
  let count = 0;
  for (const [name, value] of new URLSearchParams(UTF8.decode(bytes))) {
    if (++count > MAX_FORM_FIELDS) {
      throw new DomainError('VALIDATION_ERROR', `The form body has more than ${MAX_FORM_FIELDS} fields.`, {
        errors: [{ path: 'body', message: `more than ${MAX_FORM_FIELDS} fields` }],
      });
    }
    const before = Object.hasOwn(fields, name) ? fields[name] : undefined;
    if (before === undefined) fields[name] = value;
    else if (Array.isArray(before)) before.push(value);
    else fields[name] = [before, value];
  }
  return fields;
}

const UNKNOWN_FIELD = 'unknown field';

/** One error per field: a key the schema does not know (a strict object) is named by its own path. */
export function zodFieldErrors(error: z.ZodError, root: string): FieldError[] {
  return error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: [...issue.path, key].map(String).join('.'), message: UNKNOWN_FIELD }));
    }
    const path = issue.path.map(String).join('.');
    return [{ path: path || root, message: issue.message }];
  });
}

/** The problem's detail: unknown fields first (as Stripe's "unknown parameter"), then the rest. */
function validationDetail(errors: FieldError[], where: string): string {
  const unknown = errors.filter((e) => e.message === UNKNOWN_FIELD).map((e) => `"${e.path}"`);
  const invalid = errors.filter((e) => e.message !== UNKNOWN_FIELD);
  const parts: string[] = [];
  if (unknown.length > 0) parts.push(`Unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}.`);
  if (invalid.length > 0) {
    const summary = invalid
      .slice(0, 3)
      .map((e) => `${e.path}: ${e.message}`)
      .join('; ');
    parts.push(`Invalid ${where}: ${summary}${invalid.length > 3 ? '; …' : ''}`);
  }
  return parts.join(' ');
}

/**
 * Validates a value with a zod schema, or throws 400 VALIDATION_ERROR naming every bad field.
 * Body schemas of /api/v1 are strict objects, so a field they do not know is one of them; query
 * schemas are not, so an unknown query parameter is ignored.
 */
export function validate<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: 'body' | 'query' | 'path',
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const errors = zodFieldErrors(result.error, where);
  throw new DomainError('VALIDATION_ERROR', validationDetail(errors, where), { errors });
}

export function queryObject(url: URL): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of url.searchParams) out[key] = value;
  return out;
}
