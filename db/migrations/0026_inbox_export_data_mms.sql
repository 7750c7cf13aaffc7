CREATE TABLE "smsgate_inbox_exports" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"account_id" uuid NOT NULL,
	"phone_id" uuid NOT NULL,
	"since" timestamp (3) with time zone NOT NULL,
	"until" timestamp (3) with time zone NOT NULL,
	"message_types" text DEFAULT 'SMS' NOT NULL,
	"recovered" integer DEFAULT 0 NOT NULL,
	"repeated" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "messages" DROP CONSTRAINT "messages_kind_check";--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "data_port" integer;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "details" jsonb;--> statement-breakpoint
ALTER TABLE "smsgate_inbox_exports" ADD CONSTRAINT "smsgate_inbox_exports_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "smsgate_inbox_exports" ADD CONSTRAINT "smsgate_inbox_exports_phone_id_phones_id_fk" FOREIGN KEY ("phone_id") REFERENCES "public"."phones"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "smsgate_inbox_exports_phone_created_idx" ON "smsgate_inbox_exports" USING btree ("phone_id","created_at");--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_kind_check" CHECK ("messages"."kind" in ('message', 'sim_check', 'data', 'mms'));