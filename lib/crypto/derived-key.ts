import { hkdfSync } from 'node:crypto';
import { appSecret } from '@/lib/config';

const keys = new Map<string, Buffer>();

/**
 * A 32-byte key for one purpose, derived from APP_SECRET by HKDF-SHA256: each purpose has its own
 * key, and a new APP_SECRET gives new keys (whatever the old ones signed stops verifying).
 */
export function derivedKey(purpose: string): Buffer {
  const secret = appSecret();
  const cacheKey = `${purpose}\0${secret}`;
  let key = keys.get(cacheKey);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', secret, 'simgate-derived-key', `simgate:${purpose}`, 32));
    keys.set(cacheKey, key);
  }
  return key;
}
