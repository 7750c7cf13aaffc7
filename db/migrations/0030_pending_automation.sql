CREATE TABLE "pending_automation" (
	"account_id" uuid NOT NULL,
	"message_id" uuid NOT NULL,
	"event_id" uuid,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "pending_automation_pkey" PRIMARY KEY("message_id","account_id")
);
--> statement-breakpoint
ALTER TABLE "pending_automation" ADD CONSTRAINT "pending_automation_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "pending_automation" ADD CONSTRAINT "pending_automation_message_id_messages_id_fk" FOREIGN KEY ("account_id","message_id") REFERENCES "public"."messages"("account_id","id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "pending_automation_created_at_idx" ON "pending_automation" USING btree ("created_at");