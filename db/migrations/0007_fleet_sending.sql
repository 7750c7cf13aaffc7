CREATE TABLE "opt_outs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL,
	"phone" text NOT NULL,
	"source" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "opt_outs_source_check" CHECK ("opt_outs"."source" in ('inbound', 'manual'))
);
--> statement-breakpoint
ALTER TABLE "events" DROP CONSTRAINT "events_type_check";--> statement-breakpoint
ALTER TABLE "message_status_history" DROP CONSTRAINT "message_status_history_status_check";--> statement-breakpoint
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_event_type_check";--> statement-breakpoint
ALTER TABLE "webhooks" DROP CONSTRAINT "webhooks_events_check";--> statement-breakpoint
ALTER TABLE "bulk_messages" ALTER COLUMN "phone_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "opt_out_reply" text;--> statement-breakpoint
ALTER TABLE "bulk_messages" ADD COLUMN "from_group" integer;--> statement-breakpoint
ALTER TABLE "message_status_history" ADD COLUMN "from_phone" text;--> statement-breakpoint
ALTER TABLE "message_status_history" ADD COLUMN "to_phone" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "sim" smallint;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "from_group" integer;--> statement-breakpoint
ALTER TABLE "opt_outs" ADD CONSTRAINT "opt_outs_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "opt_outs_account_phone_key" ON "opt_outs" USING btree ("account_id","phone");--> statement-breakpoint
CREATE INDEX "messages_account_to_idx" ON "messages" USING btree ("account_id","to","created_at") WHERE "messages"."direction" = 'outbound';--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_type_check" CHECK ("events"."type" in ('message.received', 'message.sent', 'message.delivered', 'message.failed', 'message.expired', 'message.rerouted', 'recipient.opted_out', 'recipient.opted_in', 'phone.online', 'phone.offline', 'webhook.test'));--> statement-breakpoint
ALTER TABLE "message_status_history" ADD CONSTRAINT "message_status_history_status_check" CHECK ("message_status_history"."status" in ('queued', 'dispatched', 'sent', 'delivered', 'failed', 'expired', 'received', 'rerouted'));--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_sim_check" CHECK ("messages"."sim" is null or "messages"."sim" in (1, 2));--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_type_check" CHECK ("webhook_deliveries"."event_type" in ('message.received', 'message.sent', 'message.delivered', 'message.failed', 'message.expired', 'message.rerouted', 'recipient.opted_out', 'recipient.opted_in', 'phone.online', 'phone.offline', 'webhook.test'));--> statement-breakpoint
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_events_check" CHECK ("webhooks"."events" <@ array['message.received', 'message.sent', 'message.delivered', 'message.failed', 'message.expired', 'message.rerouted', 'recipient.opted_out', 'recipient.opted_in', 'phone.online', 'phone.offline', 'webhook.test']::text[]);