CREATE TABLE "smpp_binds" (
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"account_id" uuid NOT NULL,
	"credential_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"bound_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"seen_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "smpp_binds_pkey" PRIMARY KEY("id","account_id"),
	CONSTRAINT "smpp_binds_kind_check" CHECK ("smpp_binds"."kind" in ('transmitter', 'receiver', 'transceiver'))
);
--> statement-breakpoint
CREATE TABLE "smpp_credentials" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"account_id" uuid NOT NULL,
	"system_id" text NOT NULL,
	"password_hash" text NOT NULL,
	"failed_attempts" integer DEFAULT 0 NOT NULL,
	"locked_until" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"last_bound_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "smpp_deliveries" (
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"account_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"system_id" text,
	"payload" jsonb NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp (3) with time zone,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "smpp_deliveries_pkey" PRIMARY KEY("id","account_id"),
	CONSTRAINT "smpp_deliveries_kind_check" CHECK ("smpp_deliveries"."kind" in ('receipt', 'mo'))
);
--> statement-breakpoint
CREATE TABLE "smpp_submits" (
	"message_id" uuid NOT NULL,
	"account_id" uuid NOT NULL,
	"system_id" text NOT NULL,
	"registered_delivery" smallint NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "smpp_submits_pkey" PRIMARY KEY("message_id","account_id")
);
--> statement-breakpoint
ALTER TABLE "audit_log" DROP CONSTRAINT "audit_log_action_check";--> statement-breakpoint
ALTER TABLE "smpp_binds" ADD CONSTRAINT "smpp_binds_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "smpp_credentials" ADD CONSTRAINT "smpp_credentials_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "smpp_deliveries" ADD CONSTRAINT "smpp_deliveries_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "smpp_submits" ADD CONSTRAINT "smpp_submits_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "smpp_binds_account_idx" ON "smpp_binds" USING btree ("account_id","seen_at");--> statement-breakpoint
CREATE UNIQUE INDEX "smpp_credentials_system_id_key" ON "smpp_credentials" USING btree ("system_id");--> statement-breakpoint
CREATE INDEX "smpp_credentials_account_idx" ON "smpp_credentials" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "smpp_deliveries_account_due_idx" ON "smpp_deliveries" USING btree ("account_id","next_attempt_at");--> statement-breakpoint
CREATE INDEX "smpp_deliveries_expires_idx" ON "smpp_deliveries" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "smpp_submits_created_idx" ON "smpp_submits" USING btree ("created_at");--> statement-breakpoint
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_action_check" CHECK ("audit_log"."action" in ('api_key.created', 'api_key.revoked', 'webhook.created', 'webhook.updated', 'webhook.deleted', 'webhook.secret_revealed', 'webhook.secret_rotated', 'inbound_rule.created', 'inbound_rule.updated', 'inbound_rule.deleted', 'email_address.added', 'email_address.confirmed', 'email_address.removed', 'credits.transferred', 'credits.granted', 'plan.changed', 'phone.added', 'phone.removed', 'phone.paired', 'pairing_code.issued', 'phone.sim_verified', 'device.revoked', 'sending_settings.updated', 'alert_settings.updated', 'help_reply.updated', 'opt_out.added', 'opt_out.removed', 'smsgate_settings.updated', 'data_settings.updated', 'smsgate_signing_key.revealed', 'twilio_auth_token.created', 'twilio_auth_token.rotated', 'smpp_credential.created', 'smpp_credential.revoked', 'session.signed_in', 'session.sign_in_failed', 'session.ended_all'));