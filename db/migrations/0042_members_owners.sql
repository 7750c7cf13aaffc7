-- Every account's activating email is its first owner. Accounts are few beside messages: one statement.
INSERT INTO "members" ("account_id", "email", "role", "joined_at")
SELECT "id", "email", 'owner', "created_at" FROM "accounts"
ON CONFLICT ("account_id", "email") DO NOTHING;
