-- online: the index changes CONCURRENTLY, while sends go on writing messages (db/migrator.ts).
-- The substring search index holds live content only, with account_id beside the text: the retention
-- sweep's rewrite of a message's text (some sixty trigrams of its hash) adds nothing to it, a purged text
-- is not searched, and a substring search of a quiet account reads that account's matches, not every
-- account's (migration 0009's index had no account). The new index first, then the old one goes.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "messages_content_substring_idx" ON "messages" USING gin ("account_id","content" gin_trgm_ops) WHERE "messages"."content_purged_at" is null;--> statement-breakpoint
DROP INDEX CONCURRENTLY IF EXISTS "messages_content_trgm_idx";
