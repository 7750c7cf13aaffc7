import { Webhook } from 'standardwebhooks';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  generateWebhookSecret,
  PREVIOUS_SECRET_GRACE_MS,
  sealWebhookSecret,
  signedHeaders,
  signingSecrets,
  unsealWebhookSecret,
} from './signing';

beforeAll(() => {
  process.env.APP_SECRET ??= 'test-app-secret-for-webhooks-0123456789abcdef';
});

describe('secrets at rest', () => {
  it('seals a secret with AES-256-GCM and opens it again', () => {
    const secret = generateWebhookSecret();
    const sealed = sealWebhookSecret(secret);
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain(secret.slice(6));
    expect(sealWebhookSecret(secret)).not.toBe(sealed);
    expect(unsealWebhookSecret(sealed)).toBe(secret);
  });

  it('refuses a tampered or malformed value', () => {
    const sealed = sealWebhookSecret(generateWebhookSecret());
    const [version, iv, ciphertext, tag] = sealed.split('.');
    const flipped = `${ciphertext![0] === 'A' ? 'B' : 'A'}${ciphertext!.slice(1)}`;
    expect(() => unsealWebhookSecret([version, iv, flipped, tag].join('.'))).toThrow();
    expect(() => unsealWebhookSecret('v1.abc')).toThrow();
  });
});

describe('signatures', () => {
  const now = new Date('2025-01-01T00:00:00Z');

  it('signs with every live secret, verifiable by a Standard Webhooks receiver', () => {
    const current = generateWebhookSecret();
    const previous = generateWebhookSecret();
    const body = JSON.stringify({ type: 'message.received', timestamp: now.toISOString(), data: {} });
    const headers = signedHeaders([current, previous], 'evt-1', new Date(), body);
    expect(headers['webhook-id']).toBe('evt-1');
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    for (const secret of [current, previous]) expect(new Webhook(secret).verify(body, headers)).toBeTruthy();
  });

  it('keeps the previous secret only during its grace period', () => {
    const row = {
      secretEncrypted: sealWebhookSecret(generateWebhookSecret()),
      previousSecretEncrypted: sealWebhookSecret(generateWebhookSecret()),
      previousSecretExpiresAt: new Date(now.getTime() + PREVIOUS_SECRET_GRACE_MS),
    };
    expect(signingSecrets(row, now)).toHaveLength(2);
    expect(signingSecrets(row, new Date(now.getTime() + PREVIOUS_SECRET_GRACE_MS + 1))).toHaveLength(1);
    expect(signingSecrets({ ...row, previousSecretEncrypted: null }, now)).toHaveLength(1);
  });
});
