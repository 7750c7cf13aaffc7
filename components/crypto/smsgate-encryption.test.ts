import { createCipheriv, createDecipheriv, pbkdf2Sync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isSmsGateEncrypted } from '@/lib/crypto/smsgate-format';
import { decryptSmsGate, encryptSmsGate, tryDecryptSmsGate } from './smsgate-encryption';

/**
 * client-py's documented algorithm (android-sms-gateway/client-py, android_sms_gateway/encryption.py,
 * `AESEncryptor`; the app's EncryptionService.kt at 0cdc5d8 decrypts the same): key =
 * PBKDF2-HMAC-SHA1(passphrase, salt, i, 32 bytes), AES-256-CBC with the salt as IV, PKCS#7,
 * `$aes-256-cbc/pbkdf2-sha1$i=<i>$<b64 salt>$<b64 ciphertext>`. Computed here with Node's own
 * crypto module, independently of the module under test.
 */
function referenceEncrypt(cleartext: string, passphrase: string, salt: Buffer, iterations: number): string {
  const key = pbkdf2Sync(passphrase, salt, iterations, 32, 'sha1');
  const cipher = createCipheriv('aes-256-cbc', key, salt);
  const data = Buffer.concat([cipher.update(cleartext, 'utf8'), cipher.final()]);
  return `$aes-256-cbc/pbkdf2-sha1$i=${iterations}$${salt.toString('base64')}$${data.toString('base64')}`;
}

function referenceDecrypt(encrypted: string, passphrase: string): string {
  const [, , params, salt64, data64] = encrypted.split('$');
  const iterations = Number(params?.replace('i=', ''));
  const salt = Buffer.from(salt64 ?? '', 'base64');
  const key = pbkdf2Sync(passphrase, salt, iterations, 32, 'sha1');
  const decipher = createDecipheriv('aes-256-cbc', key, salt);
  return Buffer.concat([decipher.update(Buffer.from(data64 ?? '', 'base64')), decipher.final()]).toString('utf8');
}

const salt = Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex');

describe('SMSGate passphrase encryption', () => {
  it('decrypts a vector made by the reference algorithm (75 000 iterations, client-py default)', async () => {
    const vector = referenceEncrypt('Your code is 4821 — ça marche', 'correct horse', salt, 75_000);
    expect(vector.startsWith('$aes-256-cbc/pbkdf2-sha1$i=75000$AAECAwQFBgcICQoLDA0ODw==$')).toBe(true);
    expect(await decryptSmsGate(vector, 'correct horse')).toBe('Your code is 4821 — ça marche');
    expect(isSmsGateEncrypted(vector)).toBe(true);
  });

  it('decrypts a phone number encrypted with another iteration count', async () => {
    const vector = referenceEncrypt('+14155550123', 'p4ss', salt, 1_000);
    expect(await decryptSmsGate(vector, 'p4ss')).toBe('+14155550123');
  });

  it('encrypts what the reference algorithm decrypts, with a fresh salt each time', async () => {
    const one = await encryptSmsGate('Hello from Simgate', 'secret', 2_000);
    const two = await encryptSmsGate('Hello from Simgate', 'secret', 2_000);
    expect(one).not.toBe(two);
    expect(one).toMatch(/^\$aes-256-cbc\/pbkdf2-sha1\$i=2000\$/);
    expect(referenceDecrypt(one, 'secret')).toBe('Hello from Simgate');
    expect(await decryptSmsGate(one, 'secret')).toBe('Hello from Simgate');
  });

  it('uses 75 000 iterations by default', async () => {
    expect(await encryptSmsGate('x', 'y')).toMatch(/\$i=75000\$/);
  });

  it('a wrong passphrase or a malformed value does not open it', async () => {
    const vector = referenceEncrypt('a longer secret message', 'right', salt, 1_000);
    expect(await tryDecryptSmsGate(vector, 'wrong')).toBeNull();
    expect(await tryDecryptSmsGate('plain text', 'right')).toBeNull();
    expect(await tryDecryptSmsGate('$aes-256-cbc/pbkdf2-sha1$i=0$AAAA$AAAA', 'right')).toBeNull();
    expect(isSmsGateEncrypted('plain text')).toBe(false);
  });
});
