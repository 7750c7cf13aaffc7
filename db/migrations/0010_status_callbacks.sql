ALTER TABLE "accounts" ADD COLUMN "callback_secret_encrypted" text;--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "callback_webhook_id" uuid;--> statement-breakpoint
ALTER TABLE "webhooks" ADD COLUMN "kind" text DEFAULT 'endpoint' NOT NULL;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_callback_webhook_id_webhooks_id_fk" FOREIGN KEY ("callback_webhook_id") REFERENCES "public"."webhooks"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "webhooks_callback_url_key" ON "webhooks" USING btree ("account_id","url") WHERE "webhooks"."kind" = 'callback';--> statement-breakpoint
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_kind_check" CHECK ("webhooks"."kind" in ('endpoint', 'callback'));