-- online: both indexes change CONCURRENTLY, while sends go on writing messages (db/migrator.ts).
-- Pacing's index holds only messages handed out at least once (lib/messages/pacing.ts `HANDED_OUT`): a
-- phone's backlog of queued sends that were never claimed is no longer walked by every count of its
-- hand-outs, and a new send no longer writes an entry in it. The new index first, then the old one goes.
CREATE INDEX CONCURRENTLY IF NOT EXISTS "messages_phone_handed_idx" ON "messages" USING btree ("phone_id","updated_at") WHERE "messages"."direction" = 'outbound' and ("messages"."status" <> 'queued' or "messages"."attempts" > 1);--> statement-breakpoint
DROP INDEX CONCURRENTLY IF EXISTS "messages_phone_updated_idx";
