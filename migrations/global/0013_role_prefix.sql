-- The role prefix without a query (issue 17). The per-row triggers read brain.settings for it
-- on every row they see: about 22 microseconds a row in PGlite, as much as the rest of
-- brain.stamp_row. brain.role_prefix() says it; the bootstrap (db/bootstrap.ts, syncSettings)
-- redefines it, as the owner, as an IMMUTABLE function returning the prefix it has just
-- written to brain.settings, which Postgres folds into a constant. Until then, and in a
-- database no bootstrap has finished, it reads the setting. Only the owner can redefine it.
CREATE FUNCTION brain.role_prefix() RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog
AS $$ SELECT s.value FROM brain.settings s WHERE s.key = 'role_prefix' $$;

-- brain.stamp_row (0010_side_doors.sql), the same checks: the prefix from brain.role_prefix(),
-- and the id's sequence named by the trigger (migrations/subject/0011_stamp_sequence.sql).
-- 50,000 inserts through it: 3.9 s of CPU before, 1.4 s after (0.3 s without the trigger).
CREATE OR REPLACE FUNCTION brain.stamp_row() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
  prefix text := brain.role_prefix();
  seq text;
  drawn bigint;
  restored timestamptz;
BEGIN
  IF prefix IS NULL OR NOT starts_with(current_user::text, prefix) OR current_user::text = prefix || 'owner' THEN RETURN NEW; END IF;
  IF TG_OP = 'UPDATE' THEN
    IF 'id' = ANY (TG_ARGV) AND NEW.id IS DISTINCT FROM OLD.id THEN
      RAISE EXCEPTION 'the id of a row of %.% cannot be changed', TG_TABLE_SCHEMA, TG_TABLE_NAME
        USING ERRCODE = '42501', HINT = 'Ids are assigned by the database and keep a row tied to its history; change the other columns instead.';
    END IF;
    IF 'created_at' = ANY (TG_ARGV) THEN NEW.created_at := OLD.created_at; END IF;
    RETURN NEW;
  END IF;
  IF 'id' = ANY (TG_ARGV) THEN
    -- The sequence the subject migration named (its last argument, 'seq=NAME'): looking it up
    -- in pg_depend for every row cost more than the rest of this function.
    seq := CASE WHEN starts_with(TG_ARGV[TG_NARGS - 1], 'seq=') THEN format('%I.%I', TG_TABLE_SCHEMA, substr(TG_ARGV[TG_NARGS - 1], 5))
                ELSE pg_get_serial_sequence(format('%I.%I', TG_TABLE_SCHEMA, TG_TABLE_NAME), 'id') END;
    -- The common case costs one function call: the id is the sequence's newest.
    IF NEW.id IS DISTINCT FROM pg_sequence_last_value(seq::regclass) THEN
      BEGIN
        drawn := currval(seq);
      EXCEPTION WHEN object_not_in_prerequisite_state THEN
        drawn := NULL;
      END;
      IF NEW.id IS DISTINCT FROM drawn THEN
        IF TG_TABLE_NAME IN ('topics', 'episodes') THEN
          EXECUTE format('SELECT (v.row_data ->> ''created_at'')::timestamptz FROM %I.versions v
                           WHERE v.entity = $1 AND v.entity_id = $2 AND v.operation = ''DELETE'' ORDER BY v.id DESC LIMIT 1', TG_TABLE_SCHEMA)
            INTO restored USING CASE TG_TABLE_NAME WHEN 'topics' THEN 'topic' ELSE 'episode' END, NEW.id;
        END IF;
        IF restored IS NULL THEN
          RAISE EXCEPTION 'ids of %.% are assigned by the database; OVERRIDING SYSTEM VALUE is refused', TG_TABLE_SCHEMA, TG_TABLE_NAME
            USING ERRCODE = '42501', HINT = 'Leave the id out. Only a deleted card or episode may come back under its own id (restore).';
        END IF;
      END IF;
    END IF;
  END IF;
  IF 'created_at' = ANY (TG_ARGV) THEN NEW.created_at := coalesce(restored, now()); END IF;
  IF 'updated_at' = ANY (TG_ARGV) THEN NEW.updated_at := now(); END IF;
  RETURN NEW;
END
$$;

-- brain.stamp_history (0012_audit_statements.sql), the prefix from brain.role_prefix().
CREATE OR REPLACE FUNCTION brain.stamp_history() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
  prefix text := brain.role_prefix();
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
