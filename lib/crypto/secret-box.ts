import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { appSecret } from '@/lib/config';

/**
 * Encryption at rest for secrets the service must read back (webhook signing secrets): AES-256-GCM
 * with a key derived from APP_SECRET by HKDF, one key per purpose so a ciphertext of one kind
 * cannot be passed off as another. Sealed form: `v1.<iv>.<ciphertext>.<tag>` (base64url).
 */
const VERSION = 'v1';
const IV_BYTES = 12;

const keys = new Map<string, Buffer>();

function keyFor(purpose: string): Buffer {
  const secret = appSecret();
  const cacheKey = `${purpose}\0${secret}`;
  let key = keys.get(cacheKey);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', secret, 'simgate-secret-box', `simgate:${purpose}`, 32));
    keys.set(cacheKey, key);
  }
  return key;
}

export function encryptSecret(plaintext: string, purpose: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyFor(purpose), iv);
  cipher.setAAD(Buffer.from(purpose));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, iv, ciphertext, cipher.getAuthTag()]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

/** Throws when the sealed value was altered, sealed for another purpose, or under another APP_SECRET. */
export function decryptSecret(sealed: string, purpose: string): string {
  const [version, iv, ciphertext, tag] = sealed.split('.');
  if (version !== VERSION || !iv || ciphertext === undefined || !tag) throw new Error('secret-box: malformed value');
  const decipher = createDecipheriv('aes-256-gcm', keyFor(purpose), Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(purpose));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}
