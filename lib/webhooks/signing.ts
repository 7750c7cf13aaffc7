import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { webhooks } from '@/db/schema';
import { decryptSecret, encryptSecret } from '@/lib/crypto/secret-box';

/** Standard Webhooks signing: per-webhook `whsec_` secrets, stored encrypted. */

const SECRET_PURPOSE = 'webhook-signing-secret';

/** After a rotation the previous secret keeps signing alongside the new one this long. */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 60 * 60 * 1000;

export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export function sealWebhookSecret(secret: string): string {
  return encryptSecret(secret, SECRET_PURPOSE);
}

export function unsealWebhookSecret(sealed: string): string {
  return decryptSecret(sealed, SECRET_PURPOSE);
}

type SecretColumns = Pick<
  typeof webhooks.$inferSelect,
  'secretEncrypted' | 'previousSecretEncrypted' | 'previousSecretExpiresAt'
>;

/** The current secret, and the previous one while its grace period lasts. */
export function signingSecrets(webhook: SecretColumns, now: Date): string[] {
  const secrets = [unsealWebhookSecret(webhook.secretEncrypted)];
  if (webhook.previousSecretEncrypted && webhook.previousSecretExpiresAt && webhook.previousSecretExpiresAt > now) {
    secrets.push(unsealWebhookSecret(webhook.previousSecretEncrypted));
  }
  return secrets;
}

/**
 * The three Standard Webhooks headers. `webhook-id` is the event id, the same on every retry, so
 * receivers de-duplicate on it; one `v1,` signature per live secret, space-separated.
 */
export function signedHeaders(
  secrets: string[],
  eventId: string,
  signedAt: Date,
  body: string,
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(signedAt.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(eventId, signedAt, body)).join(' '),
  };
}
