-- Back-pressure's counter starts at each account's queued messages (lib/messages/queue-room.ts).
INSERT INTO "account_queues" ("account_id", "queued")
SELECT "account_id", count(*)::int FROM "messages" WHERE "status" = 'queued' GROUP BY "account_id"
ON CONFLICT ("account_id") DO NOTHING;
