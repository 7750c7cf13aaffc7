import { registerSealedColumnOpener } from '@/lib/backup/secrets';
import { registerAuthStrategy } from '@/lib/http/credentials';
import { unsealSigningKey } from '@/lib/integrations/smsgate-signing-key';
import { registerWebhookFormat } from '@/lib/webhooks/formats';
import { authenticateIntegrator } from './auth';
import { smsgateDeliveryRequest } from './webhook-body';

/** What SMSGate's integrator API lends the domain (called once by lib/protocols/register.ts). */
export function registerSmsgateApi(): void {
  registerAuthStrategy('integrator', authenticateIntegrator);
  // SMSGate's body and signature, for webhooks registered through its integrator API.
  registerWebhookFormat('smsgate', { request: (db, delivery) => smsgateDeliveryRequest(db, delivery, new Date()) });
  registerSealedColumnOpener('accounts.smsgate_signing_key_encrypted', unsealSigningKey);
}
