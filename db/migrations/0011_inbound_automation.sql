CREATE TABLE "automatic_sends" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL,
	"counterpart" text NOT NULL,
	"message_id" uuid NOT NULL,
	"at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "inbound_rules" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"account_id" uuid NOT NULL,
	"name" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"position" integer NOT NULL,
	"keyword" text,
	"pattern" text,
	"from_prefix" text,
	"scope_phone_ids" uuid[] DEFAULT '{}'::uuid[] NOT NULL,
	"scope_group_ids" integer[] DEFAULT '{}'::integer[] NOT NULL,
	"actions" jsonb NOT NULL,
	"continue" boolean DEFAULT false NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "audit_log" DROP CONSTRAINT "audit_log_action_check";--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "help_reply" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "origin_kind" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "origin_rule_id" uuid;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "origin_message_id" uuid;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "origin_key" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "automation" jsonb;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD COLUMN "reply_result" text;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "accept_replies" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "automatic_sends" ADD CONSTRAINT "automatic_sends_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "automatic_sends" ADD CONSTRAINT "automatic_sends_message_id_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "inbound_rules" ADD CONSTRAINT "inbound_rules_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "automatic_sends_counterpart_idx" ON "automatic_sends" USING btree ("account_id","counterpart","at");--> statement-breakpoint
CREATE INDEX "inbound_rules_account_position_idx" ON "inbound_rules" USING btree ("account_id","position");--> statement-breakpoint
CREATE UNIQUE INDEX "messages_origin_key" ON "messages" USING btree ("origin_message_id","origin_key") WHERE "messages"."origin_message_id" is not null;--> statement-breakpoint
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_action_check" CHECK ("audit_log"."action" in ('api_key.created', 'api_key.revoked', 'webhook.created', 'webhook.updated', 'webhook.deleted', 'webhook.secret_revealed', 'webhook.secret_rotated', 'inbound_rule.created', 'inbound_rule.updated', 'inbound_rule.deleted', 'credits.transferred', 'credits.granted', 'plan.changed', 'phone.added', 'phone.removed', 'phone.paired', 'device.revoked', 'session.signed_in', 'session.sign_in_failed', 'session.ended_all'));--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_origin_kind_check" CHECK ("messages"."origin_kind" in ('rule', 'help', 'webhook_reply'));