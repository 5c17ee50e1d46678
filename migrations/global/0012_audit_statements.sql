-- The audit, set-based (issue 17). One outbox row per change stays the rule; what changes is
-- how an INSERT's rows get there. brain.audit_row() ran once per inserted row: it turned the
-- whole row into json (a card's tsvector and body included) to read its id and slug, and
-- planned its INSERT INTO outbox again for every row (EXECUTE). Importing 7,500 GBrain pages
-- is ~136,000 rows, and that trigger took 46 of the import's 89 s of writing (PGlite,
-- pg_stat_user_functions). brain.audit_inserts() runs once per statement over the statement's
-- new rows (a transition table) and writes their outbox rows with one INSERT ... SELECT, in
-- the order the rows were inserted. UPDATE and DELETE keep brain.audit_row(): they are one
-- card at a time, and an UPDATE that changes nothing must still write nothing, row by row.
--
-- The row id is what audit_row() records: the id column where the table has one, else its key
-- columns joined with ':' (episode_id:topic_id, topic_id:tag, topic_id); the slug where the
-- table has one. SECURITY INVOKER like audit_row(): the outbox's own trigger
-- (brain.stamp_history) records current_user, the writer.
CREATE FUNCTION brain.audit_inserts() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
  cols text[] := ARRAY(SELECT a.attname::text FROM pg_attribute a WHERE a.attrelid = TG_RELID AND a.attnum > 0 AND NOT a.attisdropped);
  row_id text;
BEGIN
  IF 'id' = ANY (cols) THEN
    row_id := 'n.id::text';
  ELSE
    row_id := format('concat_ws(%L, %s)', ':',
      (SELECT string_agg(format('n.%I::text', k.c), ', ' ORDER BY k.o)
         FROM unnest(ARRAY['episode_id', 'topic_id', 'tag']) WITH ORDINALITY AS k (c, o) WHERE k.c = ANY (cols)));
  END IF;
  EXECUTE format('INSERT INTO %I.outbox (operation, table_name, row_id, slug) SELECT %L, %L, %s, %s FROM audit_new n',
    TG_TABLE_SCHEMA, 'INSERT', TG_TABLE_NAME, row_id, CASE WHEN 'slug' = ANY (cols) THEN 'n.slug' ELSE 'NULL' END);
  RETURN NULL;
END
$$;

-- The outbox's stamp, unchanged in what it does (0011_remote_client.sql), cheaper per row: the
-- session settings are read with current_setting() directly. brain.tx_setting() has a SET
-- clause, which Postgres never inlines and which saves and restores search_path on every call:
-- seven calls per outbox row, ~543,000 calls and ~5 s in the 7,500-page import.
CREATE OR REPLACE FUNCTION brain.stamp_history() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
  prefix text := (SELECT s.value FROM brain.settings s WHERE s.key = 'role_prefix');
  writer text := CASE WHEN current_user::text = prefix || 'owner' THEN coalesce(nullif(current_setting('brain.actor', true), ''), current_user) ELSE current_user END;
  client text := nullif(current_setting('brain.client', true), '');
  detail json := nullif(current_setting('brain.detail', true), '')::json;
  reason text := nullif(current_setting('brain.reason', true), '');
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
    NEW.reason := reason;
    NEW.app_operation := nullif(current_setting('brain.operation', true), '');
    NEW.detail := detail;
    NEW.is_upcast := TG_TABLE_SCHEMA = 'personal' AND writer <> prefix || 'personal';
    NEW.flagged := NEW.is_upcast AND NEW.reason IS NULL;
  ELSE
    NEW.changed_by := writer;
    NEW.changed_at := now();
    NEW.reason := reason;
  END IF;
  RETURN NEW;
END
$$;
