import { AUDIT_ACTIONS, type AuditAction } from '@/db/schema/audit-actions';

export { AUDIT_ACTIONS, type AuditAction };

/** How the dashboard names each action. */
export const AUDIT_ACTION_LABELS: Record<AuditAction, string> = {
  'api_key.created': 'API key created',
  'api_key.revoked': 'API key revoked',
  'webhook.created': 'Webhook created',
  'webhook.updated': 'Webhook changed',
  'webhook.deleted': 'Webhook deleted',
  'webhook.secret_revealed': 'Webhook secret shown',
  'webhook.secret_rotated': 'Webhook secret rotated',
  'inbound_rule.created': 'Inbound rule created',
  'inbound_rule.updated': 'Inbound rule changed',
  'inbound_rule.deleted': 'Inbound rule deleted',
  'email_address.added': 'Forwarding email added',
  'email_address.confirmed': 'Forwarding email confirmed',
  'email_address.removed': 'Forwarding email removed',
  'credits.transferred': 'Credits transferred',
  'credits.granted': 'Credits granted by the operator',
  'plan.changed': 'Plan changed',
  'phone.added': 'Phone added',
  'phone.removed': 'Phone removed',
  'phone.paired': 'SMSGate app paired',
  'pairing_code.issued': 'Pairing code issued',
  'phone.sim_verified': 'SIM verified',
  'device.revoked': 'Device revoked',
  'sending_settings.updated': 'Sending settings changed',
  'alert_settings.updated': 'Alert settings changed',
  'help_reply.updated': 'HELP reply changed',
  'opt_out.added': 'Opt-out added',
  'opt_out.removed': 'Opt-out removed',
  'smsgate_settings.updated': 'SMSGate settings changed',
  'smsgate_signing_key.revealed': 'SMSGate signing key shown',
  'session.signed_in': 'Signed in',
  'session.sign_in_failed': 'Sign-in failed',
  'session.ended_all': 'Signed out everywhere',
};
