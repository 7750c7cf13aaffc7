CREATE TABLE "smsgate_messages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"account_id" uuid NOT NULL,
	"ext_id" text NOT NULL,
	"bulk_id" uuid,
	"phone_id" uuid,
	"recipients" jsonb NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "events" DROP CONSTRAINT "events_type_check";--> statement-breakpoint
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_event_type_check";--> statement-breakpoint
ALTER TABLE "webhooks" DROP CONSTRAINT "webhooks_kind_check";--> statement-breakpoint
ALTER TABLE "webhooks" DROP CONSTRAINT "webhooks_events_check";--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "smsgate_signing_key_encrypted" text;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "smsgate_settings" jsonb;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "ext_id" text;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "ext_event" text;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "ext_device_id" text;--> statement-breakpoint
ALTER TABLE "smsgate_messages" ADD CONSTRAINT "smsgate_messages_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "smsgate_messages" ADD CONSTRAINT "smsgate_messages_bulk_id_bulk_messages_id_fk" FOREIGN KEY ("bulk_id") REFERENCES "public"."bulk_messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "smsgate_messages" ADD CONSTRAINT "smsgate_messages_phone_id_phones_id_fk" FOREIGN KEY ("phone_id") REFERENCES "public"."phones"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "smsgate_messages_account_ext_id_key" ON "smsgate_messages" USING btree ("account_id","ext_id");--> statement-breakpoint
CREATE INDEX "smsgate_messages_account_created_idx" ON "smsgate_messages" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "smsgate_messages_bulk_idx" ON "smsgate_messages" USING btree ("bulk_id") WHERE "smsgate_messages"."bulk_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "webhooks_smsgate_ext_id_key" ON "webhooks" USING btree ("account_id","ext_id") WHERE "webhooks"."kind" = 'smsgate';--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_type_check" CHECK ("events"."type" in ('message.received', 'message.sent', 'message.delivered', 'message.failed', 'message.expired', 'message.cancelled', 'message.rerouted', 'recipient.opted_out', 'recipient.opted_in', 'phone.online', 'phone.offline', 'phone.ping', 'webhook.test'));--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_type_check" CHECK ("webhook_deliveries"."event_type" in ('message.received', 'message.sent', 'message.delivered', 'message.failed', 'message.expired', 'message.cancelled', 'message.rerouted', 'recipient.opted_out', 'recipient.opted_in', 'phone.online', 'phone.offline', 'phone.ping', 'webhook.test'));--> statement-breakpoint
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_kind_check" CHECK ("webhooks"."kind" in ('endpoint', 'callback', 'smsgate'));--> statement-breakpoint
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_events_check" CHECK ("webhooks"."events" <@ array['message.received', 'message.sent', 'message.delivered', 'message.failed', 'message.expired', 'message.cancelled', 'message.rerouted', 'recipient.opted_out', 'recipient.opted_in', 'phone.online', 'phone.offline', 'phone.ping', 'webhook.test']::text[]);