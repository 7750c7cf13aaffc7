-- online: the index is built CONCURRENTLY, while sends go on writing messages (db/migrator.ts).
-- Search by words (GET /api/v1/messages?q=): a GIN index of each message's words under its account.
-- btree_gin lets GIN hold account_id beside the words; written by hand: drizzle-kit does not create
-- extensions. PGlite ships btree_gin as an extension of its own, loaded by db/client.ts.
CREATE EXTENSION IF NOT EXISTS btree_gin;--> statement-breakpoint
CREATE INDEX CONCURRENTLY IF NOT EXISTS "messages_content_fts_idx" ON "messages" USING gin ("account_id",to_tsvector('simple', "content"));
