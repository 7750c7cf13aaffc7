CREATE TABLE "audit_log" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"account_id" uuid NOT NULL,
	"action" text NOT NULL,
	"actor_kind" text NOT NULL,
	"actor_label" text,
	"ip" text,
	"target" text,
	"details" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "audit_log_action_check" CHECK ("audit_log"."action" in ('api_key.created', 'api_key.revoked', 'webhook.created', 'webhook.updated', 'webhook.deleted', 'webhook.secret_revealed', 'webhook.secret_rotated', 'credits.transferred', 'credits.granted', 'plan.changed', 'phone.added', 'phone.removed', 'phone.paired', 'device.revoked', 'session.signed_in', 'session.sign_in_failed', 'session.ended_all')),
	CONSTRAINT "audit_log_actor_kind_check" CHECK ("audit_log"."actor_kind" in ('api_key', 'session', 'device', 'operator', 'anonymous'))
);
--> statement-breakpoint
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_log_account_created_idx" ON "audit_log" USING btree ("account_id","created_at","id");--> statement-breakpoint
CREATE INDEX "audit_log_account_action_idx" ON "audit_log" USING btree ("account_id","action","created_at");