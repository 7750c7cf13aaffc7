CREATE TABLE "email_sms_senders" (
	"account_id" uuid NOT NULL,
	"message_id" uuid NOT NULL,
	"sender" text NOT NULL,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "email_sms_senders_pkey" PRIMARY KEY("account_id","message_id")
);
--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "email_sms_forward_replies" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "email_sms_senders" ADD CONSTRAINT "email_sms_senders_message_fk" FOREIGN KEY ("account_id","message_id") REFERENCES "public"."messages"("account_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "email_sms_senders_created_idx" ON "email_sms_senders" USING btree ("created_at");