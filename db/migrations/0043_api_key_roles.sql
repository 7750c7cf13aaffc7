ALTER TABLE "api_keys" ADD COLUMN "created_by_member_id" uuid;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "role" text;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_created_by_member_id_members_id_fk" FOREIGN KEY ("created_by_member_id") REFERENCES "public"."members"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_role_check" CHECK ("api_keys"."role" in ('owner', 'admin', 'developer', 'operator', 'viewer'));