CREATE TABLE "contacts" (
	"id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"account_id" uuid NOT NULL,
	"name" text,
	"number" text NOT NULL,
	"tags" text[] DEFAULT '{}'::text[] NOT NULL,
	"notes" text,
	"created_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp (3) with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "contacts_pkey" PRIMARY KEY("id","account_id"),
	CONSTRAINT "contacts_name_length_check" CHECK (char_length("contacts"."name") <= 100),
	CONSTRAINT "contacts_notes_length_check" CHECK (char_length("contacts"."notes") <= 1000),
	CONSTRAINT "contacts_tags_count_check" CHECK (cardinality("contacts"."tags") <= 20)
);
--> statement-breakpoint
ALTER TABLE "contacts" ADD CONSTRAINT "contacts_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "contacts_account_number_key" ON "contacts" USING btree ("account_id","number");--> statement-breakpoint
CREATE INDEX "contacts_account_created_idx" ON "contacts" USING btree ("account_id","created_at","id");--> statement-breakpoint
CREATE INDEX "contacts_tags_idx" ON "contacts" USING gin ("tags");