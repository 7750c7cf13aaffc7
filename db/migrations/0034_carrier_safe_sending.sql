CREATE TABLE "account_queues" (
	"account_id" uuid PRIMARY KEY NOT NULL,
	"queued" integer DEFAULT 0 NOT NULL,
	"recounted_at" timestamp (3) with time zone
);
--> statement-breakpoint
ALTER TABLE "alerts" DROP CONSTRAINT "alerts_kind_check";--> statement-breakpoint
ALTER TABLE "events" DROP CONSTRAINT "events_type_check";--> statement-breakpoint
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_event_type_check";--> statement-breakpoint
ALTER TABLE "webhooks" DROP CONSTRAINT "webhooks_events_check";--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "max_queued_messages" integer DEFAULT 100000 NOT NULL;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "smart_encoding" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "inbound_dedup_seconds" integer DEFAULT 120 NOT NULL;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "alert_phone_paused_minutes" integer DEFAULT 1;--> statement-breakpoint
ALTER TABLE "phones" ADD COLUMN "paused_until" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "phones" ADD COLUMN "pause_seconds" integer;--> statement-breakpoint
ALTER TABLE "phones" ADD COLUMN "pause_resumed_at" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "account_queues" ADD CONSTRAINT "account_queues_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "phones_pause_idx" ON "phones" USING btree ("paused_until") WHERE "phones"."paused_until" is not null and "phones"."pause_resumed_at" is null;--> statement-breakpoint
CREATE INDEX "messages_account_queued_idx" ON "messages" USING btree ("account_id") WHERE "messages"."status" = 'queued';--> statement-breakpoint
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_max_queued_messages_range" CHECK ("accounts"."max_queued_messages" >= 1);--> statement-breakpoint
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_inbound_dedup_seconds_range" CHECK ("accounts"."inbound_dedup_seconds" between 0 and 86400);--> statement-breakpoint
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_alert_phone_paused_range" CHECK ("accounts"."alert_phone_paused_minutes" is null or "accounts"."alert_phone_paused_minutes" between 1 and 240);--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_kind_check" CHECK ("alerts"."kind" in ('phone_offline', 'battery_low', 'queue_stalled', 'phone_paused', 'group_balance_low', 'webhook_failing'));--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_type_check" CHECK ("events"."type" in ('message.received', 'message.sent', 'message.delivered', 'message.failed', 'message.expired', 'message.cancelling', 'message.cancelled', 'message.rerouted', 'recipient.opted_out', 'recipient.opted_in', 'phone.online', 'phone.offline', 'phone.paused', 'phone.resumed', 'phone.ping', 'alert.raised', 'alert.resolved', 'webhook.test'));--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_type_check" CHECK ("webhook_deliveries"."event_type" in ('message.received', 'message.sent', 'message.delivered', 'message.failed', 'message.expired', 'message.cancelling', 'message.cancelled', 'message.rerouted', 'recipient.opted_out', 'recipient.opted_in', 'phone.online', 'phone.offline', 'phone.paused', 'phone.resumed', 'phone.ping', 'alert.raised', 'alert.resolved', 'webhook.test'));--> statement-breakpoint
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_events_check" CHECK ("webhooks"."events" <@ array['message.received', 'message.sent', 'message.delivered', 'message.failed', 'message.expired', 'message.cancelling', 'message.cancelled', 'message.rerouted', 'recipient.opted_out', 'recipient.opted_in', 'phone.online', 'phone.offline', 'phone.paused', 'phone.resumed', 'phone.ping', 'alert.raised', 'alert.resolved', 'webhook.test']::text[]);