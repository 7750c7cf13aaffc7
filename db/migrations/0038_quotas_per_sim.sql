CREATE TABLE "sim_recipient_counts" (
	"account_id" uuid NOT NULL,
	"phone_id" uuid NOT NULL,
	"sim" smallint NOT NULL,
	"month" date NOT NULL,
	"recipients" integer NOT NULL,
	CONSTRAINT "sim_recipient_counts_pkey" PRIMARY KEY("account_id","phone_id","sim","month")
);
--> statement-breakpoint
CREATE TABLE "sim_recipients" (
	"account_id" uuid NOT NULL,
	"phone_id" uuid NOT NULL,
	"sim" smallint NOT NULL,
	"month" date NOT NULL,
	"recipient" text NOT NULL,
	CONSTRAINT "sim_recipients_pkey" PRIMARY KEY("account_id","phone_id","sim","month","recipient")
);
--> statement-breakpoint
ALTER TABLE "sim_recipient_counts" ADD CONSTRAINT "sim_recipient_counts_phone_fk" FOREIGN KEY ("phone_id","account_id") REFERENCES "public"."phones"("id","account_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sim_recipients" ADD CONSTRAINT "sim_recipients_phone_fk" FOREIGN KEY ("phone_id","account_id") REFERENCES "public"."phones"("id","account_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sim_recipient_counts_month_idx" ON "sim_recipient_counts" USING btree ("month");--> statement-breakpoint
CREATE INDEX "sim_recipients_month_idx" ON "sim_recipients" USING btree ("month");