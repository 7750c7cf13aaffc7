// Plain constants (no drizzle), so that the dashboard can name the actions without the schema.

/**
 * What the audit log records: changes to credentials, money, phones and their pairing, webhooks,
 * inbound rules (they can forward messages), what and where the account sends (sending settings,
 * HELP text, opt-outs, SMSGate settings), alert settings, sign-ins, and members' roles and departures.
 */
export const AUDIT_ACTIONS = [
  'api_key.created',
  'api_key.revoked',
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'webhook.secret_revealed',
  'webhook.secret_rotated',
  'inbound_rule.created',
  'inbound_rule.updated',
  'inbound_rule.deleted',
  'email_address.added',
  'email_address.confirmed',
  'email_address.removed',
  'credits.transferred',
  'credits.granted',
  'plan.changed',
  'phone.added',
  'phone.removed',
  'phone.paired',
  'pairing_code.issued',
  'phone.sim_verified',
  'device.revoked',
  'sending_settings.updated',
  'alert_settings.updated',
  'help_reply.updated',
  'opt_out.added',
  'opt_out.removed',
  'smsgate_settings.updated',
  'data_settings.updated',
  'email_sms_settings.updated',
  'smsgate_signing_key.revealed',
  'twilio_auth_token.created',
  'twilio_auth_token.rotated',
  'smpp_credential.created',
  'smpp_credential.revoked',
  'invitation.created',
  'invitation.revoked',
  'invitation.accepted',
  'session.signed_in',
  'session.sign_in_failed',
  'session.ended_all',
  'session.switched_account',
  'two_factor.enabled',
  'two_factor.disabled',
  'two_factor.check_failed',
  'two_factor.recovery_code_used',
  'security_settings.updated',
  'member.role_changed',
  'member.removed',
  'member.left',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Who acted: an API key, a dashboard session, a device key, the operator CLI, or nobody known. */
export const AUDIT_ACTOR_KINDS = ['api_key', 'session', 'device', 'operator', 'anonymous'] as const;
export type AuditActorKind = (typeof AUDIT_ACTOR_KINDS)[number];
