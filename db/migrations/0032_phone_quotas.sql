CREATE TABLE "phone_recipient_counts" (
	"account_id" uuid NOT NULL,
	"phone_id" uuid NOT NULL,
	"month" date NOT NULL,
	"recipients" integer NOT NULL,
	CONSTRAINT "phone_recipient_counts_pkey" PRIMARY KEY("account_id","phone_id","month")
);
--> statement-breakpoint
CREATE TABLE "phone_recipients" (
	"account_id" uuid NOT NULL,
	"phone_id" uuid NOT NULL,
	"month" date NOT NULL,
	"recipient" text NOT NULL,
	CONSTRAINT "phone_recipients_pkey" PRIMARY KEY("account_id","phone_id","month","recipient")
);
--> statement-breakpoint
ALTER TABLE "phones" ADD COLUMN "hourly_cap" integer;--> statement-breakpoint
ALTER TABLE "phones" ADD COLUMN "monthly_recipient_cap" integer;--> statement-breakpoint
ALTER TABLE "phones" ADD COLUMN "jitter_seconds" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "held_reason" text;--> statement-breakpoint
ALTER TABLE "phone_recipient_counts" ADD CONSTRAINT "phone_recipient_counts_phone_fk" FOREIGN KEY ("phone_id","account_id") REFERENCES "public"."phones"("id","account_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "phone_recipients" ADD CONSTRAINT "phone_recipients_phone_fk" FOREIGN KEY ("phone_id","account_id") REFERENCES "public"."phones"("id","account_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_held_reason_check" CHECK ("messages"."held_reason" in ('hourly_cap', 'daily_cap'));