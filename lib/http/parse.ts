import type { z } from 'zod';
import { DomainError, type FieldError } from '@/lib/errors';

export const MAX_BODY_BYTES = 1024 * 1024;

function isJsonContentType(contentType: string | null): boolean {
  if (!contentType) return false;
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return mediaType === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(mediaType);
}

/** The request's body bytes, 413 past 1 MiB: for routes that must read exactly what was sent (signatures). */
export async function readCapped(req: Request): Promise<Uint8Array> {
  const declared = Number(req.headers.get('content-length') ?? Number.NaN);
  if (declared > MAX_BODY_BYTES) throw tooLarge();
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
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

function tooLarge(): DomainError {
  return new DomainError('PAYLOAD_TOO_LARGE', `The body is larger than ${MAX_BODY_BYTES} bytes.`);
}

/**
 * The request's JSON body: undefined when there is none, 415 for a body that is not JSON,
 * 413 past 1 MiB, 400 for JSON that does not parse.
 */
export async function readJsonBody(req: Request): Promise<unknown> {
  const bytes = await readCapped(req);
  if (bytes.byteLength === 0) return undefined;
  if (!isJsonContentType(req.headers.get('content-type'))) {
    throw new DomainError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as JSON with Content-Type: application/json.');
  }
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new DomainError('VALIDATION_ERROR', `The body is not valid JSON: ${(error as Error).message}`, {
      errors: [{ path: 'body', message: 'malformed JSON' }],
    });
  }
}

export function zodFieldErrors(error: z.ZodError, root: string): FieldError[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    return { path: path || root, message: issue.message };
  });
}

/** Validates a value with a zod schema, or throws 400 VALIDATION_ERROR naming every bad field. */
export function validate<S extends z.ZodType>(
  schema: S,
  value: unknown,
  where: 'body' | 'query' | 'path',
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const errors = zodFieldErrors(result.error, where);
  const summary = errors
    .slice(0, 3)
    .map((e) => `${e.path}: ${e.message}`)
    .join('; ');
  throw new DomainError('VALIDATION_ERROR', `Invalid ${where}: ${summary}${errors.length > 3 ? '; …' : ''}`, {
    errors,
  });
}

export function queryObject(url: URL): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of url.searchParams) out[key] = value;
  return out;
}
