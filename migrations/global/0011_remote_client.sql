-- Remote clients in the outbox (issue 19). A subject server reached with an OAuth token sets
-- brain.client (the client's registered name, as the owner approved it) first in every
-- transaction of that session (services/auth/session-db.ts); every outbox row the
-- transaction writes then carries it in its detail, as {"client": NAME, ...}. It goes into
-- detail rather than a column of its own so that the deny-list's scan of personal's outbox
-- (reason and decision, brain_private.deny_guard) covers it too: a client names itself at
-- registration, so its name is writer-chosen text like a reason. Local calls (no client) are
-- recorded exactly as before.
CREATE OR REPLACE FUNCTION brain.stamp_history() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
  prefix text := (SELECT s.value FROM brain.settings s WHERE s.key = 'role_prefix');
  writer text := CASE WHEN current_user::text = prefix || 'owner' THEN coalesce(brain.tx_setting('actor'), current_user) ELSE current_user END;
  client text := brain.tx_setting('client');
  detail json := brain.tx_setting('detail')::json;
BEGIN
  IF pg_trigger_depth() < 2 THEN
    RAISE EXCEPTION '%.% is written by triggers only', TG_TABLE_SCHEMA, TG_TABLE_NAME USING ERRCODE = '42501';
  END IF;
  IF TG_TABLE_NAME = 'outbox' THEN
    IF client IS NOT NULL THEN
      detail := CASE WHEN json_typeof(detail) = 'object' THEN (jsonb_build_object('client', client) || (detail::jsonb - 'client'))::json
                     WHEN detail IS NULL THEN json_build_object('client', client)
                     ELSE json_build_object('client', client, 'detail', detail) END;
    END IF;
    NEW.actor := writer;
    NEW.at := now();
    NEW.txid := txid_current();
    NEW.reason := brain.tx_setting('reason');
    NEW.app_operation := brain.tx_setting('operation');
    NEW.detail := detail;
    NEW.is_upcast := TG_TABLE_SCHEMA = 'personal' AND writer <> prefix || 'personal';
    NEW.flagged := NEW.is_upcast AND NEW.reason IS NULL;
  ELSE
    NEW.changed_by := writer;
    NEW.changed_at := now();
    NEW.reason := brain.tx_setting('reason');
  END IF;
  RETURN NEW;
END
$$;
