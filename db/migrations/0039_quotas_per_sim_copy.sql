-- The monthly recipients counted per phone before SIM slots (0032_phone_quotas) now count for
-- slot 1, the slot every phone that reports fewer than two SIMs counts for, and the first slot
-- of a two-SIM phone (lib/messages/quota.ts `quotaSimSql`). Only this month and the previous one
-- are copied: the retention sweep keeps no older month.
INSERT INTO "sim_recipients" ("account_id", "phone_id", "sim", "month", "recipient")
	SELECT "account_id", "phone_id", 1, "month", "recipient" FROM "phone_recipients"
	WHERE "month" >= (date_trunc('month', now() at time zone 'UTC') - interval '1 month')::date
	ON CONFLICT DO NOTHING;--> statement-breakpoint
INSERT INTO "sim_recipient_counts" ("account_id", "phone_id", "sim", "month", "recipients")
	SELECT "account_id", "phone_id", 1, "month", "recipients" FROM "phone_recipient_counts"
	WHERE "month" >= (date_trunc('month', now() at time zone 'UTC') - interval '1 month')::date
	ON CONFLICT DO NOTHING;
