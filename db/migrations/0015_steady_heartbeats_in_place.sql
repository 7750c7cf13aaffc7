-- A steady heartbeat (same status) writes battery and last_heartbeat_at. With this index on
-- last_heartbeat_at, every such update wrote a new entry into each of the table's five indexes;
-- without it, no index covers what a heartbeat writes, so PostgreSQL updates the row in place (a
-- HOT update) and the indexes are not touched (bench/: PostgreSQL CPU per heartbeat ~260 -> 190-240 us).
-- The offline sweep, which used it, reads the table: once a sweep interval, not once a heartbeat.
DROP INDEX "phones_online_heartbeat_idx";--> statement-breakpoint
-- Room on each page for the next versions of its rows, so an in-place update rarely has to wait for
-- the page to be pruned. Applies to pages written from now on.
ALTER TABLE "phones" SET (fillfactor = 80);
