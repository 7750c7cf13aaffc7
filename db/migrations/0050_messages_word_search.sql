-- Search by words (GET /api/v1/messages?q=): a GIN index of each message's words under its account.
-- btree_gin lets GIN hold account_id beside the words; written by hand: drizzle-kit does not create
-- extensions. PGlite ships btree_gin as an extension of its own, loaded by db/client.ts.
-- IF NOT EXISTS: on a large table the index may be built beforehand without stopping writes
-- (docs/performance.md, "Word search"), and this statement then finds it.
CREATE EXTENSION IF NOT EXISTS btree_gin;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "messages_content_fts_idx" ON "messages" USING gin ("account_id",to_tsvector('simple', "content"));
