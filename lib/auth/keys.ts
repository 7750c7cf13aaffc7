import { hash, randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_BODY_LENGTH = 40;
export const KEY_PREFIX_LENGTH = 8;

export type KeyKind = 'account' | 'device';
const PREFIX: Record<KeyKind, string> = { account: 'sk_', device: 'dk_' };

/** Uniform base62 characters (rejection sampling, so no character is likelier than another). */
function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** One call per authenticated request: the one-shot `hash` costs less than half of a `createHash` chain. */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

export type GeneratedKey = { key: string; hash: string; prefix: string };

/** `sk_` / `dk_` + 40 base62 characters; only the hash and the first 8 characters are stored. */
export function generateKey(kind: KeyKind): GeneratedKey {
  const key = PREFIX[kind] + randomBase62(KEY_BODY_LENGTH);
  return { key, hash: hashSecret(key), prefix: key.slice(0, KEY_PREFIX_LENGTH) };
}

export function keyKindOf(key: string): KeyKind | undefined {
  if (key.startsWith(PREFIX.account)) return 'account';
  if (key.startsWith(PREFIX.device)) return 'device';
  return undefined;
}

export function isPlausibleKey(key: string): boolean {
  return key.length <= 128 && /^(sk|dk)_[0-9A-Za-z]{32,}$/.test(key);
}
