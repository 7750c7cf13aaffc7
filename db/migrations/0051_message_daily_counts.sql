CREATE TABLE "message_daily_counts" (
	"account_id" uuid NOT NULL,
	"day" date NOT NULL,
	"queued" integer DEFAULT 0 NOT NULL,
	"sent" integer DEFAULT 0 NOT NULL,
	"delivered" integer DEFAULT 0 NOT NULL,
	"failed" integer DEFAULT 0 NOT NULL,
	"received" integer DEFAULT 0 NOT NULL,
	"stale" boolean DEFAULT true NOT NULL,
	"counted_at" timestamp (3) with time zone,
	CONSTRAINT "message_daily_counts_pkey" PRIMARY KEY("account_id","day")
);
--> statement-breakpoint
ALTER TABLE "message_daily_counts" ADD CONSTRAINT "message_daily_counts_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "message_daily_counts_stale_idx" ON "message_daily_counts" USING btree ("account_id") WHERE "message_daily_counts"."stale";