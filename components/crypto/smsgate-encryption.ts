/**
 * The SMSGate app's passphrase encryption, in the browser and in Node (both have Web Crypto):
 * `$aes-256-cbc/pbkdf2-sha1$i=<iterations>$<base64 salt>$<base64 ciphertext>`. The key is
 * PBKDF2-HMAC-SHA1(passphrase, salt, iterations, 32 bytes); the 16-byte salt is also the CBC IV;
 * the text is UTF-8 with PKCS#7 padding. Source: the app's EncryptionService.kt (commit 0cdc5d8)
 * and client-py's `Encryptor` (android_sms_gateway/encryption.py, 75 000 iterations by default).
 * Whether a value has the format's shape is lib/crypto/smsgate-format.ts's rule.
 */

import { SMSGATE_ALGORITHM } from '@/lib/crypto/smsgate-format';

export const DEFAULT_ITERATIONS = 75_000;
const SALT_BYTES = 16;
const MAX_ITERATIONS = 10_000_000;

const PREFIX = `$${SMSGATE_ALGORITHM}$`;

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replace(/\s/g, ''));
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

async function deriveKey(passphrase: string, salt: Uint8Array<ArrayBuffer>, iterations: number) {
  const material = await globalThis.crypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(passphrase),
    'PBKDF2',
    false,
    ['deriveKey'],
  );
  return globalThis.crypto.subtle.deriveKey(
    { name: 'PBKDF2', hash: 'SHA-1', salt, iterations },
    material,
    { name: 'AES-CBC', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  );
}

export async function encryptSmsGate(
  cleartext: string,
  passphrase: string,
  iterations: number = DEFAULT_ITERATIONS,
): Promise<string> {
  const salt = globalThis.crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  const key = await deriveKey(passphrase, salt, iterations);
  const ciphertext = await globalThis.crypto.subtle.encrypt(
    { name: 'AES-CBC', iv: salt },
    key,
    new TextEncoder().encode(cleartext),
  );
  return `${PREFIX}i=${iterations}$${toBase64(salt)}$${toBase64(new Uint8Array(ciphertext))}`;
}

/** Decrypts one value; throws on a malformed value or a wrong passphrase (bad padding). */
export async function decryptSmsGate(encrypted: string, passphrase: string): Promise<string> {
  const chunks = encrypted.split('$');
  if (chunks.length !== 5 || chunks[1] !== SMSGATE_ALGORITHM) throw new Error('Not in the SMSGate encrypted format');
  const params = new Map(
    (chunks[2] ?? '').split(',').map((pair) => {
      const [name = '', value = ''] = pair.split('=', 2);
      return [name, value] as const;
    }),
  );
  const iterations = Number(params.get('i'));
  if (!Number.isInteger(iterations) || iterations < 1 || iterations > MAX_ITERATIONS) {
    throw new Error('Missing or invalid iteration count');
  }
  const salt = fromBase64(chunks[3] ?? '');
  if (salt.length !== SALT_BYTES) throw new Error('The salt must be 16 bytes');
  const key = await deriveKey(passphrase, salt, iterations);
  const clear = await globalThis.crypto.subtle.decrypt({ name: 'AES-CBC', iv: salt }, key, fromBase64(chunks[4] ?? ''));
  return new TextDecoder('utf-8', { fatal: true }).decode(clear);
}

/** Decrypts, or answers null when the passphrase does not open it. */
export async function tryDecryptSmsGate(encrypted: string, passphrase: string): Promise<string | null> {
  try {
    return await decryptSmsGate(encrypted, passphrase);
  } catch {
    return null;
  }
}
