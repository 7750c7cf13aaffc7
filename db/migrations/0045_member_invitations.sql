CREATE TABLE "member_invitations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"account_id" uuid NOT NULL,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"token_hash" text NOT NULL,
	"invited_by_member_id" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"accepted_at" timestamp (3) with time zone,
	"revoked_at" timestamp (3) with time zone,
	CONSTRAINT "member_invitations_role_check" CHECK ("member_invitations"."role" in ('owner', 'admin', 'developer', 'operator', 'viewer'))
);
--> statement-breakpoint
ALTER TABLE "audit_log" DROP CONSTRAINT "audit_log_action_check";--> statement-breakpoint
ALTER TABLE "member_invitations" ADD CONSTRAINT "member_invitations_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_invitations" ADD CONSTRAINT "member_invitations_invited_by_member_id_members_id_fk" FOREIGN KEY ("invited_by_member_id") REFERENCES "public"."members"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "member_invitations_token_hash_key" ON "member_invitations" USING btree ("token_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "member_invitations_live_key" ON "member_invitations" USING btree ("account_id","email") WHERE "member_invitations"."accepted_at" is null and "member_invitations"."revoked_at" is null;--> statement-breakpoint
CREATE INDEX "member_invitations_live_email_idx" ON "member_invitations" USING btree ("email") WHERE "member_invitations"."accepted_at" is null and "member_invitations"."revoked_at" is null;--> statement-breakpoint
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_action_check" CHECK ("audit_log"."action" in ('api_key.created', 'api_key.revoked', 'webhook.created', 'webhook.updated', 'webhook.deleted', 'webhook.secret_revealed', 'webhook.secret_rotated', 'inbound_rule.created', 'inbound_rule.updated', 'inbound_rule.deleted', 'email_address.added', 'email_address.confirmed', 'email_address.removed', 'credits.transferred', 'credits.granted', 'plan.changed', 'phone.added', 'phone.removed', 'phone.paired', 'pairing_code.issued', 'phone.sim_verified', 'device.revoked', 'sending_settings.updated', 'alert_settings.updated', 'help_reply.updated', 'opt_out.added', 'opt_out.removed', 'smsgate_settings.updated', 'data_settings.updated', 'email_sms_settings.updated', 'smsgate_signing_key.revealed', 'twilio_auth_token.created', 'twilio_auth_token.rotated', 'smpp_credential.created', 'smpp_credential.revoked', 'invitation.created', 'invitation.revoked', 'invitation.accepted', 'session.signed_in', 'session.sign_in_failed', 'session.ended_all', 'session.switched_account'));