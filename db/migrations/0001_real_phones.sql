CREATE TABLE "pairing_codes" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"account_id" uuid NOT NULL,
	"phone_id" uuid NOT NULL,
	"code_hash" text NOT NULL,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"consumed_at" timestamp (3) with time zone,
	"device_id" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "devices" ADD COLUMN "kind" text DEFAULT 'simulator' NOT NULL;--> statement-breakpoint
ALTER TABLE "devices" ADD COLUMN "name" text;--> statement-breakpoint
ALTER TABLE "devices" ADD COLUMN "push_token" text;--> statement-breakpoint
ALTER TABLE "devices" ADD COLUMN "sim_cards" jsonb;--> statement-breakpoint
ALTER TABLE "devices" ADD COLUMN "signing_key_encrypted" text;--> statement-breakpoint
ALTER TABLE "phones" ADD COLUMN "sim_verification" text DEFAULT 'unverified' NOT NULL;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "kind" text DEFAULT 'message' NOT NULL;--> statement-breakpoint
ALTER TABLE "pairing_codes" ADD CONSTRAINT "pairing_codes_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pairing_codes" ADD CONSTRAINT "pairing_codes_phone_id_phones_id_fk" FOREIGN KEY ("phone_id") REFERENCES "public"."phones"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pairing_codes" ADD CONSTRAINT "pairing_codes_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "pairing_codes_live_hash_key" ON "pairing_codes" USING btree ("code_hash") WHERE "pairing_codes"."consumed_at" is null;--> statement-breakpoint
CREATE INDEX "pairing_codes_phone_idx" ON "pairing_codes" USING btree ("phone_id");--> statement-breakpoint
ALTER TABLE "phones" ADD CONSTRAINT "phones_sim_verification_check" CHECK (sim_verification in ('unverified', 'pending', 'verified'));