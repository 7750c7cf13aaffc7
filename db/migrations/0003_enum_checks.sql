ALTER TABLE "phones" DROP CONSTRAINT "phones_sim_verification_check";--> statement-breakpoint
ALTER TABLE "credit_ledger" ADD CONSTRAINT "credit_ledger_kind_check" CHECK ("credit_ledger"."kind" in ('starter_grant', 'operator_grant', 'transfer_out', 'transfer_in', 'message_charge', 'refund', 'group_merge_out', 'group_merge_in'));--> statement-breakpoint
ALTER TABLE "dev_inbox" ADD CONSTRAINT "dev_inbox_channel_check" CHECK ("dev_inbox"."channel" in ('sms', 'email'));--> statement-breakpoint
ALTER TABLE "devices" ADD CONSTRAINT "devices_status_check" CHECK ("devices"."status" in ('pending_verification', 'verified', 'activated', 'revoked'));--> statement-breakpoint
ALTER TABLE "devices" ADD CONSTRAINT "devices_kind_check" CHECK ("devices"."kind" in ('simulator', 'app'));--> statement-breakpoint
ALTER TABLE "verification_codes" ADD CONSTRAINT "verification_codes_purpose_check" CHECK ("verification_codes"."purpose" in ('verify_sim', 'bind_email', 'sign_in'));--> statement-breakpoint
ALTER TABLE "heartbeats" ADD CONSTRAINT "heartbeats_status_check" CHECK ("heartbeats"."status" in ('online', 'offline'));--> statement-breakpoint
ALTER TABLE "phones" ADD CONSTRAINT "phones_status_check" CHECK ("phones"."status" in ('online', 'offline', 'unknown'));--> statement-breakpoint
ALTER TABLE "phones" ADD CONSTRAINT "phones_sim_verification_check" CHECK ("phones"."sim_verification" in ('unverified', 'pending', 'verified'));--> statement-breakpoint
ALTER TABLE "message_status_history" ADD CONSTRAINT "message_status_history_status_check" CHECK ("message_status_history"."status" in ('queued', 'dispatched', 'sent', 'delivered', 'failed', 'expired', 'received'));--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_direction_check" CHECK ("messages"."direction" in ('outbound', 'inbound'));--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_status_check" CHECK ("messages"."status" in ('queued', 'dispatched', 'sent', 'delivered', 'failed', 'expired', 'received'));--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_encoding_check" CHECK ("messages"."encoding" in ('GSM-7', 'UCS-2'));--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_kind_check" CHECK ("messages"."kind" in ('message', 'sim_check'));--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_status_check" CHECK ("webhook_deliveries"."status" in ('pending', 'succeeded', 'failed'));