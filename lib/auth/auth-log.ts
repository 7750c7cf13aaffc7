import { log } from '@/lib/log';

/**
 * next-auth's error codes that bad input causes, not a fault of ours: a `callbackUrl` off this
 * site (query or cookie), or a session cookie that does not decrypt (forged, damaged, or sealed
 * with a previous APP_SECRET). Anyone can cause them at will, so they are a warning without a
 * stack; an attacker's input must not fill the error log.
 */
const REFUSED_INPUT_CODES = new Set(['INVALID_CALLBACK_URL_ERROR']);
const SESSION_COOKIE_CODES = new Set(['JWT_SESSION_ERROR', 'SIGNOUT_ERROR']);

const MAX_REASON_LENGTH = 200;

function errorOf(metadata: unknown): { code?: unknown; message?: unknown } {
  return typeof metadata === 'object' && metadata !== null ? metadata : {};
}

// jose, which next-auth decrypts cookies with, codes its failures ERR_JWE_*, ERR_JWT_*, ERR_JOSE_*, …
function isUnreadableCookie(metadata: unknown): boolean {
  const { code } = errorOf(metadata);
  return typeof code === 'string' && /^ERR_(JW[EKST]|JOSE)_/.test(code);
}

function refusedInput(code: string, metadata: unknown): boolean {
  return REFUSED_INPUT_CODES.has(code) || (SESSION_COOKIE_CODES.has(code) && isUnreadableCookie(metadata));
}

/** The `logger` of next-auth's options: one warn line for refused input, the rest as it comes. */
export function logAuthEvent(level: 'error' | 'warn', code: string, metadata?: unknown): void {
  if (level === 'warn') {
    log.warn({ code }, 'next-auth warning');
    return;
  }
  if (refusedInput(code, metadata)) {
    const { message } = errorOf(metadata);
    const reason = typeof message === 'string' ? message.slice(0, MAX_REASON_LENGTH) : undefined;
    log.warn({ code, reason }, 'next-auth refused a request');
    return;
  }
  log.error(metadata instanceof Error ? { code, err: metadata } : { code, metadata }, 'next-auth error');
}
