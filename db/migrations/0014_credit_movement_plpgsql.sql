-- The credit rule of 0004, unchanged, in PL/pgSQL. A LANGUAGE sql function that writes is never
-- inlined, so PostgreSQL parsed, analysed and planned its statement again on every call: a third
-- of the server's CPU per send (bench/, perf). PL/pgSQL prepares the statement once per session
-- and keeps its plan. Same arguments, same answer (the group's balance after the movement, or NULL
-- when nothing moved), same statement, run on the caller's snapshot rules (VOLATILE).
CREATE OR REPLACE FUNCTION simgate_move_credits(
	p_account_id uuid,
	p_group_id integer,
	p_amount integer,
	p_kind text,
	p_message_ids uuid[] DEFAULT NULL,
	p_transfer_id uuid DEFAULT NULL,
	p_note text DEFAULT NULL
) RETURNS integer
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
	v_balance integer;
BEGIN
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
	SELECT moved.balance INTO v_balance FROM moved;
	RETURN v_balance;
END
$$;
