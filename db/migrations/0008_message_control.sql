ALTER TABLE "events" DROP CONSTRAINT "events_type_check";--> statement-breakpoint
ALTER TABLE "message_status_history" DROP CONSTRAINT "message_status_history_status_check";--> statement-breakpoint
ALTER TABLE "messages" DROP CONSTRAINT "messages_status_check";--> statement-breakpoint
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_event_type_check";--> statement-breakpoint
ALTER TABLE "webhooks" DROP CONSTRAINT "webhooks_events_check";--> statement-breakpoint
DROP INDEX "messages_claim_idx";--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "send_window" jsonb;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "max_attempts" smallint DEFAULT 2 NOT NULL;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "allowed_countries" text[];--> statement-breakpoint
ALTER TABLE "phone_groups" ADD COLUMN "sending_overrides" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "priority" text DEFAULT 'normal' NOT NULL;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "attempts" smallint DEFAULT 1 NOT NULL;--> statement-breakpoint
CREATE INDEX "messages_claim_idx" ON "messages" USING btree ("phone_id","priority","send_at","created_at") WHERE "messages"."status" = 'queued';--> statement-breakpoint
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_max_attempts_range" CHECK ("accounts"."max_attempts" between 1 and 5);--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_type_check" CHECK ("events"."type" in ('message.received', 'message.sent', 'message.delivered', 'message.failed', 'message.expired', 'message.cancelled', 'message.rerouted', 'recipient.opted_out', 'recipient.opted_in', 'phone.online', 'phone.offline', 'webhook.test'));--> statement-breakpoint
ALTER TABLE "message_status_history" ADD CONSTRAINT "message_status_history_status_check" CHECK ("message_status_history"."status" in ('queued', 'dispatched', 'sent', 'delivered', 'failed', 'expired', 'cancelled', 'received', 'rerouted', 'retrying'));--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_priority_check" CHECK ("messages"."priority" in ('high', 'normal'));--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_status_check" CHECK ("messages"."status" in ('queued', 'dispatched', 'sent', 'delivered', 'failed', 'expired', 'cancelled', 'received'));--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_type_check" CHECK ("webhook_deliveries"."event_type" in ('message.received', 'message.sent', 'message.delivered', 'message.failed', 'message.expired', 'message.cancelled', 'message.rerouted', 'recipient.opted_out', 'recipient.opted_in', 'phone.online', 'phone.offline', 'webhook.test'));--> statement-breakpoint
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_events_check" CHECK ("webhooks"."events" <@ array['message.received', 'message.sent', 'message.delivered', 'message.failed', 'message.expired', 'message.cancelled', 'message.rerouted', 'recipient.opted_out', 'recipient.opted_in', 'phone.online', 'phone.offline', 'webhook.test']::text[]);