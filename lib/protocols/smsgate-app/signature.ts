import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far an `X-Timestamp` may be from now: a replayed callback older than this is refused. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/**
 * The app's webhook signature (PayloadSingingPlugin): lowercase hex HMAC-SHA256, keyed with the
 * UTF-8 of `webhooks.signing_key`, over the exact body bytes followed by the decimal timestamp.
 * The bytes matter: Gson escapes `<`, `>`, `&`, `=` and `'`, so the parsed JSON re-serialised
 * would not verify.
 */
export function appSignature(key: string, body: Uint8Array, timestamp: string): string {
  return createHmac('sha256', key).update(body).update(timestamp).digest('hex');
}

export type SignatureCheck = { ok: true } | { ok: false; reason: string };

export function checkAppSignature(
  key: string,
  body: Uint8Array,
  headers: { signature: string | null; timestamp: string | null },
  now = Date.now(),
): SignatureCheck {
  const { signature, timestamp } = headers;
  if (!signature || !timestamp) return { ok: false, reason: 'X-Signature and X-Timestamp are required.' };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'X-Timestamp must be unix seconds.' };
  if (Math.abs(now / 1000 - Number(timestamp)) > SIGNATURE_TOLERANCE_SECONDS) {
    return { ok: false, reason: `X-Timestamp is more than ${SIGNATURE_TOLERANCE_SECONDS} s from the server's clock.` };
  }
  const expected = Buffer.from(appSignature(key, body, timestamp), 'hex');
  const given = Buffer.from(/^[0-9a-fA-F]{64}$/.test(signature) ? signature : '', 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: 'X-Signature does not match the body.' };
  }
  return { ok: true };
}
