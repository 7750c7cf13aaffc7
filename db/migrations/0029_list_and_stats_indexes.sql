-- The read paths of a busy account (bench/big-table.ts, docs/performance.md "Ten million messages"):
-- the overview's counts and credit totals as index-only scans, the rare high-priority filter, and
-- number-prefix search under a non-C collation (text_pattern_ops). On 10 million messages these took
-- about 40 s on the project's machine, during which writes to messages and credit_ledger wait.
DROP INDEX "credit_ledger_account_created_idx";--> statement-breakpoint
DROP INDEX "messages_account_created_idx";--> statement-breakpoint
DROP INDEX "messages_account_to_idx";--> statement-breakpoint
CREATE INDEX "messages_account_high_idx" ON "messages" USING btree ("account_id","created_at","id") WHERE "messages"."priority" = 'high';--> statement-breakpoint
CREATE INDEX "messages_account_from_idx" ON "messages" USING btree ("account_id","from" text_pattern_ops,"created_at") WHERE "messages"."direction" = 'inbound';--> statement-breakpoint
CREATE INDEX "credit_ledger_account_created_idx" ON "credit_ledger" USING btree ("account_id","created_at","id","kind","amount");--> statement-breakpoint
CREATE INDEX "messages_account_created_idx" ON "messages" USING btree ("account_id","created_at","id","kind","direction","status");--> statement-breakpoint
CREATE INDEX "messages_account_to_idx" ON "messages" USING btree ("account_id","to" text_pattern_ops,"created_at") WHERE "messages"."direction" = 'outbound';