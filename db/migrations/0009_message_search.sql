-- Search (GET /api/v1/messages?q=): a trigram index makes "content contains q, any case" an index
-- scan instead of a scan of every message. Written by hand: drizzle-kit does not create extensions.
-- PGlite ships pg_trgm as an extension of its own, loaded by db/client.ts.
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "messages_content_trgm_idx" ON "messages" USING gin ("content" gin_trgm_ops);
