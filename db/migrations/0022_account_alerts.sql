CREATE TABLE "alerts" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"account_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"subject_type" text NOT NULL,
	"subject_id" text NOT NULL,
	"subject_name" text NOT NULL,
	"values" jsonb NOT NULL,
	"raised_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"resolved_at" timestamp (3) with time zone,
	CONSTRAINT "alerts_kind_check" CHECK ("alerts"."kind" in ('phone_offline', 'battery_low', 'queue_stalled', 'group_balance_low', 'webhook_failing')),
	CONSTRAINT "alerts_subject_type_check" CHECK ("alerts"."subject_type" in ('phone', 'group', 'webhook'))
);
--> statement-breakpoint
ALTER TABLE "audit_log" DROP CONSTRAINT "audit_log_action_check";--> statement-breakpoint
ALTER TABLE "events" DROP CONSTRAINT "events_type_check";--> statement-breakpoint
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_event_type_check";--> statement-breakpoint
ALTER TABLE "webhooks" DROP CONSTRAINT "webhooks_events_check";--> statement-breakpoint
ALTER TABLE "email_outbox" ALTER COLUMN "inbound_message_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "email_outbox" ALTER COLUMN "counterpart" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "alert_phone_offline_minutes" integer DEFAULT 15;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "alert_battery_below_percent" integer DEFAULT 15;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "alert_queued_older_than_minutes" integer DEFAULT 10;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "alert_group_balance_below" integer;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "alert_webhook_failures_in_a_row" integer DEFAULT 10;--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "alerts_open_key" ON "alerts" USING btree ("account_id","kind","subject_id") WHERE "alerts"."resolved_at" is null;--> statement-breakpoint
CREATE INDEX "alerts_account_raised_idx" ON "alerts" USING btree ("account_id","raised_at","id");--> statement-breakpoint
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_alert_phone_offline_range" CHECK ("accounts"."alert_phone_offline_minutes" is null or "accounts"."alert_phone_offline_minutes" between 1 and 10080);--> statement-breakpoint
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_alert_battery_low_range" CHECK ("accounts"."alert_battery_below_percent" is null or "accounts"."alert_battery_below_percent" between 1 and 100);--> statement-breakpoint
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_alert_queue_stalled_range" CHECK ("accounts"."alert_queued_older_than_minutes" is null or "accounts"."alert_queued_older_than_minutes" between 1 and 10080);--> statement-breakpoint
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_alert_group_balance_low_range" CHECK ("accounts"."alert_group_balance_below" is null or "accounts"."alert_group_balance_below" between 1 and 1000000000);--> statement-breakpoint
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_alert_webhook_failing_range" CHECK ("accounts"."alert_webhook_failures_in_a_row" is null or "accounts"."alert_webhook_failures_in_a_row" between 1 and 1000);--> statement-breakpoint
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_action_check" CHECK ("audit_log"."action" in ('api_key.created', 'api_key.revoked', 'webhook.created', 'webhook.updated', 'webhook.deleted', 'webhook.secret_revealed', 'webhook.secret_rotated', 'inbound_rule.created', 'inbound_rule.updated', 'inbound_rule.deleted', 'email_address.added', 'email_address.confirmed', 'email_address.removed', 'credits.transferred', 'credits.granted', 'plan.changed', 'phone.added', 'phone.removed', 'phone.paired', 'pairing_code.issued', 'phone.sim_verified', 'device.revoked', 'sending_settings.updated', 'alert_settings.updated', 'help_reply.updated', 'opt_out.added', 'opt_out.removed', 'smsgate_settings.updated', 'data_settings.updated', 'smsgate_signing_key.revealed', 'session.signed_in', 'session.sign_in_failed', 'session.ended_all'));--> statement-breakpoint
ALTER TABLE "events" ADD CONSTRAINT "events_type_check" CHECK ("events"."type" in ('message.received', 'message.sent', 'message.delivered', 'message.failed', 'message.expired', 'message.cancelled', 'message.rerouted', 'recipient.opted_out', 'recipient.opted_in', 'phone.online', 'phone.offline', 'phone.ping', 'alert.raised', 'alert.resolved', 'webhook.test'));--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_type_check" CHECK ("webhook_deliveries"."event_type" in ('message.received', 'message.sent', 'message.delivered', 'message.failed', 'message.expired', 'message.cancelled', 'message.rerouted', 'recipient.opted_out', 'recipient.opted_in', 'phone.online', 'phone.offline', 'phone.ping', 'alert.raised', 'alert.resolved', 'webhook.test'));--> statement-breakpoint
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_events_check" CHECK ("webhooks"."events" <@ array['message.received', 'message.sent', 'message.delivered', 'message.failed', 'message.expired', 'message.cancelled', 'message.rerouted', 'recipient.opted_out', 'recipient.opted_in', 'phone.online', 'phone.offline', 'phone.ping', 'alert.raised', 'alert.resolved', 'webhook.test']::text[]);