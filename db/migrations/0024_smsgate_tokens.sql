CREATE TABLE "smsgate_tokens" (
	"jti" text PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL,
	"key_id" uuid NOT NULL,
	"use" text NOT NULL,
	"parent_jti" text,
	"expires_at" timestamp (3) with time zone NOT NULL,
	"revoked_at" timestamp (3) with time zone,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "smsgate_tokens_use_check" CHECK ("smsgate_tokens"."use" in ('access', 'refresh'))
);
--> statement-breakpoint
ALTER TABLE "smsgate_tokens" ADD CONSTRAINT "smsgate_tokens_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "smsgate_tokens" ADD CONSTRAINT "smsgate_tokens_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "smsgate_tokens_account_expires_idx" ON "smsgate_tokens" USING btree ("account_id","expires_at");--> statement-breakpoint
CREATE INDEX "smsgate_tokens_parent_idx" ON "smsgate_tokens" USING btree ("parent_jti") WHERE "smsgate_tokens"."parent_jti" is not null;