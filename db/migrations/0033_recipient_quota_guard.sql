-- The monthly recipient cap's last line (lib/messages/quota.ts). A send statement records its new
-- recipients and adds them to the phone's counter with an upsert that refuses to pass the cap; it
-- then calls this with whether every phone that gained recipients had room. When one had not (a
-- concurrent send took the phone's last room after this statement's snapshot was taken), it
-- raises QT001, so that the statement, its charge included, is undone as a whole.
CREATE OR REPLACE FUNCTION simgate_recipient_quota_guard(p_within boolean) RETURNS boolean
LANGUAGE plpgsql VOLATILE
AS $$
BEGIN
	IF NOT p_within THEN
		RAISE EXCEPTION 'a phone''s monthly recipient cap was reached by a concurrent send'
			USING ERRCODE = 'QT001';
	END IF;
	RETURN true;
END
$$;
