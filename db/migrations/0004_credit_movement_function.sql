-- The one rule by which credits move, called by every path that moves them (lib/credits/ledger.ts
-- wraps it; the one-statement send calls it from a CTE): a guarded balance update that never takes
-- a group below zero (the table's CHECK stays behind it) and its ledger rows, in one statement.
-- `p_amount` is the amount of each ledger row: one row per id of `p_message_ids` (balance_after
-- counting down or up row by row, so N charges read as N single charges), or one row when there
-- are no message ids. Answers the group's balance after the movement, or NULL when nothing moved
-- (the group is not the account's, or its balance does not cover the debit).
CREATE FUNCTION simgate_move_credits(
	p_account_id uuid,
	p_group_id integer,
	p_amount integer,
	p_kind text,
	p_message_ids uuid[] DEFAULT NULL,
	p_transfer_id uuid DEFAULT NULL,
	p_note text DEFAULT NULL
) RETURNS integer
LANGUAGE sql VOLATILE
AS $$
	WITH entries AS (
		SELECT t.message_id, t.ord::integer AS ord
		FROM unnest(coalesce(p_message_ids, ARRAY[NULL::uuid])) WITH ORDINALITY AS t(message_id, ord)
	),
	total AS (
		SELECT p_amount * count(*)::integer AS amount, count(*)::integer AS rows FROM entries
	),
	moved AS (
		UPDATE phone_groups SET balance = phone_groups.balance + total.amount
		FROM total
		WHERE phone_groups.id = p_group_id AND phone_groups.account_id = p_account_id
			AND phone_groups.balance + total.amount >= 0
		RETURNING phone_groups.balance
	),
	ledger AS (
		INSERT INTO credit_ledger (account_id, group_id, kind, amount, balance_after, message_id, transfer_id, note)
		SELECT p_account_id, p_group_id, p_kind, p_amount, moved.balance - p_amount * (total.rows - entries.ord),
			entries.message_id, p_transfer_id, p_note
		FROM moved, total, entries
		ORDER BY entries.ord
	)
	SELECT balance FROM moved
$$;
