DROP INDEX "credit_ledger_account_created_idx";--> statement-breakpoint
DROP INDEX "messages_account_created_idx";--> statement-breakpoint
CREATE INDEX "messages_account_high_idx" ON "messages" USING btree ("account_id","created_at","id") WHERE "messages"."priority" = 'high';--> statement-breakpoint
CREATE INDEX "credit_ledger_account_created_idx" ON "credit_ledger" USING btree ("account_id","created_at","id","kind","amount");--> statement-breakpoint
CREATE INDEX "messages_account_created_idx" ON "messages" USING btree ("account_id","created_at","id","kind","direction","status");