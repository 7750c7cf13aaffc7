ALTER TABLE "messages" DROP CONSTRAINT "messages_bulk_id_bulk_messages_id_fk";
--> statement-breakpoint
ALTER TABLE "messages" DROP CONSTRAINT "messages_callback_webhook_id_webhooks_id_fk";
--> statement-breakpoint
ALTER TABLE "smsgate_messages" DROP CONSTRAINT "smsgate_messages_phone_id_phones_id_fk";
