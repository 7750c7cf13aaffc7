ALTER TABLE "audit_log" DROP CONSTRAINT "audit_log_action_check";--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "retention_content_days" integer;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "retention_content_mode" text;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "retention_hash_counterpart" boolean;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "content_purged_at" timestamp (3) with time zone;--> statement-breakpoint
CREATE INDEX "audit_log_created_idx" ON "audit_log" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "verification_codes_expires_idx" ON "verification_codes" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "events_created_idx" ON "events" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "heartbeats_created_idx" ON "heartbeats" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "pairing_codes_expires_idx" ON "pairing_codes" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "messages_retention_idx" ON "messages" USING btree ("account_id","created_at") WHERE "messages"."content_purged_at" is null and "messages"."status" in ('delivered', 'failed', 'expired', 'cancelled', 'received');--> statement-breakpoint
CREATE INDEX "webhook_deliveries_finished_idx" ON "webhook_deliveries" USING btree ("updated_at") WHERE "webhook_deliveries"."status" <> 'pending';--> statement-breakpoint
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_retention_content_mode_check" CHECK ("accounts"."retention_content_mode" in ('delete', 'hash'));--> statement-breakpoint
ALTER TABLE "accounts" ADD CONSTRAINT "accounts_retention_content_days_check" CHECK ("accounts"."retention_content_days" is null or "accounts"."retention_content_days" >= 1);--> statement-breakpoint
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_action_check" CHECK ("audit_log"."action" in ('api_key.created', 'api_key.revoked', 'webhook.created', 'webhook.updated', 'webhook.deleted', 'webhook.secret_revealed', 'webhook.secret_rotated', 'inbound_rule.created', 'inbound_rule.updated', 'inbound_rule.deleted', 'email_address.added', 'email_address.confirmed', 'email_address.removed', 'credits.transferred', 'credits.granted', 'plan.changed', 'phone.added', 'phone.removed', 'phone.paired', 'pairing_code.issued', 'phone.sim_verified', 'device.revoked', 'sending_settings.updated', 'help_reply.updated', 'opt_out.added', 'opt_out.removed', 'smsgate_settings.updated', 'data_settings.updated', 'smsgate_signing_key.revealed', 'session.signed_in', 'session.sign_in_failed', 'session.ended_all'));