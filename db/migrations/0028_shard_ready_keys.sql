-- Keys ready to shard by account (docs/adr/0011-keys-ready-to-shard.md): every account table's primary
-- key, unique indexes and foreign keys to other account tables include account_id. The id stays the
-- leading column of each key, so that a lookup by id alone keeps its index. The foreign keys that
-- pointed at a single id are dropped first, then the primary keys they rest on are widened, then the
-- keys come back with account_id on both sides.
ALTER TABLE "automatic_sends" DROP CONSTRAINT "automatic_sends_message_id_messages_id_fk";--> statement-breakpoint
ALTER TABLE "email_outbox" DROP CONSTRAINT "email_outbox_inbound_message_id_messages_id_fk";--> statement-breakpoint
ALTER TABLE "heartbeats" DROP CONSTRAINT "heartbeats_phone_id_phones_id_fk";--> statement-breakpoint
-- pairing_codes is the instance's (db/tenancy.ts): it cannot reference an account table.
ALTER TABLE "pairing_codes" DROP CONSTRAINT "pairing_codes_phone_id_phones_id_fk";--> statement-breakpoint
ALTER TABLE "phones" DROP CONSTRAINT "phones_group_id_phone_groups_id_fk";--> statement-breakpoint
ALTER TABLE "bulk_messages" DROP CONSTRAINT "bulk_messages_phone_id_phones_id_fk";--> statement-breakpoint
ALTER TABLE "message_status_history" DROP CONSTRAINT "message_status_history_message_id_messages_id_fk";--> statement-breakpoint
ALTER TABLE "messages" DROP CONSTRAINT "messages_phone_id_phones_id_fk";--> statement-breakpoint
ALTER TABLE "messages" DROP CONSTRAINT "messages_bulk_id_bulk_messages_id_fk";--> statement-breakpoint
ALTER TABLE "messages" DROP CONSTRAINT "messages_callback_webhook_id_webhooks_id_fk";--> statement-breakpoint
ALTER TABLE "smsgate_inbox_exports" DROP CONSTRAINT "smsgate_inbox_exports_phone_id_phones_id_fk";--> statement-breakpoint
ALTER TABLE "smsgate_messages" DROP CONSTRAINT "smsgate_messages_bulk_id_bulk_messages_id_fk";--> statement-breakpoint
ALTER TABLE "smsgate_messages" DROP CONSTRAINT "smsgate_messages_phone_id_phones_id_fk";--> statement-breakpoint
ALTER TABLE "webhook_attempts" DROP CONSTRAINT "webhook_attempts_delivery_id_webhook_deliveries_id_fk";--> statement-breakpoint
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_webhook_id_webhooks_id_fk";--> statement-breakpoint
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_event_id_events_id_fk";--> statement-breakpoint
-- The two tables that lacked account_id take their parent's.
ALTER TABLE "message_status_history" ADD COLUMN "account_id" uuid;--> statement-breakpoint
UPDATE "message_status_history" SET "account_id" = "messages"."account_id" FROM "messages" WHERE "messages"."id" = "message_status_history"."message_id";--> statement-breakpoint
ALTER TABLE "message_status_history" ALTER COLUMN "account_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD COLUMN "account_id" uuid;--> statement-breakpoint
UPDATE "webhook_attempts" SET "account_id" = "webhook_deliveries"."account_id" FROM "webhook_deliveries" WHERE "webhook_deliveries"."id" = "webhook_attempts"."delivery_id";--> statement-breakpoint
ALTER TABLE "webhook_attempts" ALTER COLUMN "account_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "alerts" DROP CONSTRAINT "alerts_pkey", ADD CONSTRAINT "alerts_pkey" PRIMARY KEY("id","account_id");--> statement-breakpoint
ALTER TABLE "audit_log" DROP CONSTRAINT "audit_log_pkey", ADD CONSTRAINT "audit_log_pkey" PRIMARY KEY("id","account_id");--> statement-breakpoint
ALTER TABLE "automatic_sends" DROP CONSTRAINT "automatic_sends_pkey", ADD CONSTRAINT "automatic_sends_pkey" PRIMARY KEY("id","account_id");--> statement-breakpoint
ALTER TABLE "inbound_rules" DROP CONSTRAINT "inbound_rules_pkey", ADD CONSTRAINT "inbound_rules_pkey" PRIMARY KEY("id","account_id");--> statement-breakpoint
ALTER TABLE "credit_ledger" DROP CONSTRAINT "credit_ledger_pkey", ADD CONSTRAINT "credit_ledger_pkey" PRIMARY KEY("id","account_id");--> statement-breakpoint
ALTER TABLE "email_addresses" DROP CONSTRAINT "email_addresses_pkey", ADD CONSTRAINT "email_addresses_pkey" PRIMARY KEY("id","account_id");--> statement-breakpoint
ALTER TABLE "email_outbox" DROP CONSTRAINT "email_outbox_pkey", ADD CONSTRAINT "email_outbox_pkey" PRIMARY KEY("id","account_id");--> statement-breakpoint
ALTER TABLE "events" DROP CONSTRAINT "events_pkey", ADD CONSTRAINT "events_pkey" PRIMARY KEY("id","account_id");--> statement-breakpoint
ALTER TABLE "heartbeats" DROP CONSTRAINT "heartbeats_pkey", ADD CONSTRAINT "heartbeats_pkey" PRIMARY KEY("id","account_id");--> statement-breakpoint
ALTER TABLE "phone_groups" DROP CONSTRAINT "phone_groups_pkey", ADD CONSTRAINT "phone_groups_pkey" PRIMARY KEY("id","account_id");--> statement-breakpoint
ALTER TABLE "phones" DROP CONSTRAINT "phones_pkey", ADD CONSTRAINT "phones_pkey" PRIMARY KEY("id","account_id");--> statement-breakpoint
ALTER TABLE "bulk_messages" DROP CONSTRAINT "bulk_messages_pkey", ADD CONSTRAINT "bulk_messages_pkey" PRIMARY KEY("id","account_id");--> statement-breakpoint
ALTER TABLE "message_status_history" DROP CONSTRAINT "message_status_history_pkey", ADD CONSTRAINT "message_status_history_pkey" PRIMARY KEY("id","account_id");--> statement-breakpoint
ALTER TABLE "messages" DROP CONSTRAINT "messages_pkey", ADD CONSTRAINT "messages_pkey" PRIMARY KEY("id","account_id");--> statement-breakpoint
ALTER TABLE "opt_outs" DROP CONSTRAINT "opt_outs_pkey", ADD CONSTRAINT "opt_outs_pkey" PRIMARY KEY("id","account_id");--> statement-breakpoint
ALTER TABLE "smsgate_inbox_exports" DROP CONSTRAINT "smsgate_inbox_exports_pkey", ADD CONSTRAINT "smsgate_inbox_exports_pkey" PRIMARY KEY("id","account_id");--> statement-breakpoint
ALTER TABLE "smsgate_messages" DROP CONSTRAINT "smsgate_messages_pkey", ADD CONSTRAINT "smsgate_messages_pkey" PRIMARY KEY("id","account_id");--> statement-breakpoint
ALTER TABLE "smsgate_tokens" DROP CONSTRAINT "smsgate_tokens_pkey", ADD CONSTRAINT "smsgate_tokens_pkey" PRIMARY KEY("jti","account_id");--> statement-breakpoint
ALTER TABLE "webhook_attempts" DROP CONSTRAINT "webhook_attempts_pkey", ADD CONSTRAINT "webhook_attempts_pkey" PRIMARY KEY("id","account_id");--> statement-breakpoint
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_pkey", ADD CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY("id","account_id");--> statement-breakpoint
ALTER TABLE "webhooks" DROP CONSTRAINT "webhooks_pkey", ADD CONSTRAINT "webhooks_pkey" PRIMARY KEY("id","account_id");--> statement-breakpoint
ALTER TABLE "automatic_sends" ADD CONSTRAINT "automatic_sends_message_id_messages_id_fk" FOREIGN KEY ("account_id","message_id") REFERENCES "public"."messages"("account_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "email_outbox" ADD CONSTRAINT "email_outbox_inbound_message_id_messages_id_fk" FOREIGN KEY ("account_id","inbound_message_id") REFERENCES "public"."messages"("account_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "heartbeats" ADD CONSTRAINT "heartbeats_phone_id_phones_id_fk" FOREIGN KEY ("account_id","phone_id") REFERENCES "public"."phones"("account_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "phones" ADD CONSTRAINT "phones_group_id_phone_groups_id_fk" FOREIGN KEY ("account_id","group_id") REFERENCES "public"."phone_groups"("account_id","id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "bulk_messages" ADD CONSTRAINT "bulk_messages_phone_id_phones_id_fk" FOREIGN KEY ("account_id","phone_id") REFERENCES "public"."phones"("account_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "message_status_history" ADD CONSTRAINT "message_status_history_message_id_messages_id_fk" FOREIGN KEY ("account_id","message_id") REFERENCES "public"."messages"("account_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_phone_id_phones_id_fk" FOREIGN KEY ("account_id","phone_id") REFERENCES "public"."phones"("account_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- SET NULL names its column: nulling the whole key would null account_id.
ALTER TABLE "messages" ADD CONSTRAINT "messages_bulk_id_bulk_messages_id_fk" FOREIGN KEY ("account_id","bulk_id") REFERENCES "public"."bulk_messages"("account_id","id") ON DELETE SET NULL ("bulk_id") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_callback_webhook_id_webhooks_id_fk" FOREIGN KEY ("account_id","callback_webhook_id") REFERENCES "public"."webhooks"("account_id","id") ON DELETE SET NULL ("callback_webhook_id") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "smsgate_inbox_exports" ADD CONSTRAINT "smsgate_inbox_exports_phone_id_phones_id_fk" FOREIGN KEY ("account_id","phone_id") REFERENCES "public"."phones"("account_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "smsgate_messages" ADD CONSTRAINT "smsgate_messages_bulk_id_bulk_messages_id_fk" FOREIGN KEY ("account_id","bulk_id") REFERENCES "public"."bulk_messages"("account_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "smsgate_messages" ADD CONSTRAINT "smsgate_messages_phone_id_phones_id_fk" FOREIGN KEY ("account_id","phone_id") REFERENCES "public"."phones"("account_id","id") ON DELETE SET NULL ("phone_id") ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_delivery_id_webhook_deliveries_id_fk" FOREIGN KEY ("account_id","delivery_id") REFERENCES "public"."webhook_deliveries"("account_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_webhook_id_webhooks_id_fk" FOREIGN KEY ("account_id","webhook_id") REFERENCES "public"."webhooks"("account_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_id_events_id_fk" FOREIGN KEY ("account_id","event_id") REFERENCES "public"."events"("account_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
DROP INDEX "credit_ledger_message_kind_key";--> statement-breakpoint
CREATE UNIQUE INDEX "credit_ledger_message_kind_key" ON "credit_ledger" USING btree ("message_id","kind","account_id") WHERE "credit_ledger"."message_id" is not null;--> statement-breakpoint
DROP INDEX "email_addresses_token_hash_key";--> statement-breakpoint
CREATE UNIQUE INDEX "email_addresses_token_hash_key" ON "email_addresses" USING btree ("token_hash","account_id");--> statement-breakpoint
DROP INDEX "messages_phone_device_message_id_key";--> statement-breakpoint
CREATE UNIQUE INDEX "messages_phone_device_message_id_key" ON "messages" USING btree ("phone_id","device_message_id","account_id") WHERE "messages"."device_message_id" is not null;--> statement-breakpoint
DROP INDEX "messages_origin_key";--> statement-breakpoint
CREATE UNIQUE INDEX "messages_origin_key" ON "messages" USING btree ("origin_message_id","origin_key","account_id") WHERE "messages"."origin_message_id" is not null;--> statement-breakpoint
DROP INDEX "webhook_deliveries_event_webhook_key";--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_event_webhook_key" ON "webhook_deliveries" USING btree ("event_id","webhook_id","account_id");
