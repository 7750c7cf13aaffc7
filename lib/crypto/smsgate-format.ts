/**
 * The SMSGate app's passphrase-encrypted format, as text:
 * `$aes-256-cbc/pbkdf2-sha1$<parameters, with i=<iterations>>$<base64 salt>$<base64 ciphertext>`
 * (the app's EncryptionService.kt, commit 0cdc5d8). Encrypting and decrypting live in
 * components/crypto/smsgate-encryption.ts; what the server accepts as ciphertext is decided here.
 */

export const SMSGATE_ALGORITHM = 'aes-256-cbc/pbkdf2-sha1';

const BASE64_TEXT = /^[A-Za-z0-9+/=\s]+$/;
const ITERATIONS = /i=\d/;

/**
 * Whether a string has the shape of the app's encrypted format (not whether it decrypts): split on
 * `$` and each part tested on its own, in time linear in the string.
 */
export function isSmsGateEncrypted(value: string): boolean {
  const parts = value.split('$', 6);
  return (
    parts.length === 5 &&
    parts[0] === '' &&
    parts[1] === SMSGATE_ALGORITHM &&
    ITERATIONS.test(parts[2] ?? '') &&
    BASE64_TEXT.test(parts[3] ?? '') &&
    BASE64_TEXT.test(parts[4] ?? '')
  );
}
