import type { Executor } from '@/db';
import { registerSealedColumnOpener } from '@/lib/backup/secrets';
import { validationError } from '@/lib/errors';
import { registerAuthStrategy } from '@/lib/http/credentials';
import { takeKeyToken } from '@/lib/rate-limit/key-bucket';
import { CALLBACK_EVENTS } from '@/lib/webhooks/callbacks';
import { registerWebhookFormat } from '@/lib/webhooks/formats';
import { authenticateTwilio, authTokenOf, unsealAuthToken } from './credentials';
import { actOnTwimlReply } from './twiml-reply';
import { twilioDeliveryRequest } from './webhook-body';

/** What a Twilio-format webhook can carry: inbound messages and the status callbacks' events. */
const TWILIO_FORMAT_EVENTS: readonly string[] = ['message.received', ...CALLBACK_EVENTS];

/**
 * A Twilio-format webhook posts only what Twilio does, and is signed with the account's Auth Token,
 * which must exist.
 */
async function assertTwilioFormat(executor: Executor, accountId: string, events: readonly string[]): Promise<void> {
  const other = events.find((event) => !TWILIO_FORMAT_EVENTS.includes(event));
  if (other) {
    throw validationError(
      'events',
      `a twilio-format webhook carries only ${TWILIO_FORMAT_EVENTS.join(', ')}, not ${other}`,
    );
  }
  if (!(await authTokenOf(executor, accountId))) {
    throw validationError(
      'format',
      'create the Twilio Auth Token first (POST /api/v1/twilio/auth-token): twilio-format webhooks are signed with it',
    );
  }
}

/** What the Twilio adapter lends the domain (called once by lib/protocols/register.ts). */
export function registerTwilio(): void {
  registerAuthStrategy('twilio', async (db, req) => {
    const principal = await authenticateTwilio(db, req);
    // The Auth Token is the account's one key on this surface: its own bucket.
    takeKeyToken(`twilio:${principal.accountId}`);
    return principal;
  });
  // Twilio's form-encoded requests with X-Twilio-Signature under the account's Auth Token; the
  // answers to inbound messages are TwiML.
  registerWebhookFormat('twilio', {
    request: (db, delivery) => twilioDeliveryRequest(db, delivery),
    assertUsable: assertTwilioFormat,
    actOnReply: actOnTwimlReply,
  });
  registerWebhookFormat('twilio_callback', { request: (db, delivery) => twilioDeliveryRequest(db, delivery) });
  registerSealedColumnOpener('accounts.twilio_auth_token_encrypted', unsealAuthToken);
}
