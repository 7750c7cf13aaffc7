import type { Executor } from '@/db';
import { DomainError } from '@/lib/errors';
import { upsertCallbackWebhook } from '@/lib/webhooks/callbacks';
import { generateWebhookSecret, sealWebhookSecret } from '@/lib/webhooks/signing';
import { assertReachableUrl } from '@/lib/webhooks/validate';
import { twilioError } from './errors';

/**
 * The delivery target of a StatusCallback: one `twilio_callback` webhook per URL, delivered by the
 * webhook worker (retries, log, SSRF rules) in Twilio's status-callback format, signed with the
 * account's Auth Token when it is sent (so a rotation signs the next callbacks with the new one).
 * The row's own secret is never used; the column requires one.
 */
export async function twilioCallbackTarget(executor: Executor, accountId: string, url: string): Promise<string> {
  try {
    await assertReachableUrl(url);
  } catch (error) {
    if (error instanceof DomainError && error.code === 'VALIDATION_ERROR') {
      throw twilioError('VALIDATION_ERROR', 21609, `StatusCallback: ${error.errors?.[0]?.message ?? error.detail}`);
    }
    throw error;
  }
  return upsertCallbackWebhook(executor, accountId, {
    url,
    kind: 'twilio_callback',
    secretEncrypted: sealWebhookSecret(generateWebhookSecret()),
  });
}
