-- Side doors into personal (issue 15), the functions; migrations/subject/0007_side_doors.sql
-- attaches them. How the deny-list matches is brain_private.deny_check()'s business
-- (0009_deny_normalise.sql); this file decides WHAT is scanned and guards the history.

-- The helpers here run only inside the deny-list triggers (SECURITY DEFINER, search_path
-- pinned to pg_catalog), never for an app role (no EXECUTE), so they carry no SET clause of
-- their own: a SET clause stops a SQL function from being inlined and costs a settings
-- push and pop on every call, and these are called once per column of every row written.

-- ---------------------------------------------------------------------------
-- The text a JSON value is scanned as: its own text (which keeps everything the writer
-- sent, duplicate keys included: the json type keeps them, jsonb would drop all but the
-- last) and then, one per line, every key and every scalar as Postgres's JSON parser
-- decodes them (\u0041 is A, \" is ", surrogate pairs are joined), so the deny-list sees
-- the words, not their escapes. A value the parser refuses (\u0000) fails the write.
-- Plain SQL over C functions: this runs for every JSON column of every row written.
CREATE FUNCTION brain_private.json_text(j json) RETURNS text
LANGUAGE sql IMMUTABLE
AS $$
  SELECT pg_catalog.concat_ws(E'\n', j::text, (
    SELECT pg_catalog.string_agg(CASE WHEN pg_catalog.jsonb_typeof(v) = 'object'
                                      THEN (SELECT pg_catalog.string_agg(k, E'\n') FROM pg_catalog.jsonb_object_keys(v) AS k)
                                      ELSE v #>> '{}' END, E'\n')
      FROM pg_catalog.jsonb_path_query(j::jsonb, 'strict $.**') AS v
     WHERE pg_catalog.jsonb_typeof(v) NOT IN ('array', 'null')))
$$;

-- Columns no writer controls, or that cannot carry words, and are not scanned: the outbox's
-- and the versions' bookkeeping (the writing role's name, the operation, the table; the
-- versions' copy of the previous row, which was scanned when it was written, and which
-- personal must be able to fix), and digests a CHECK holds to 64 hex digits.
CREATE FUNCTION brain_private.deny_unscanned(tbl text, col text) RETURNS boolean
LANGUAGE sql IMMUTABLE
AS $$
  SELECT col = 'sha256'
      OR (tbl = 'outbox' AND col IN ('actor', 'operation', 'table_name'))
      OR (tbl = 'versions' AND col IN ('entity', 'operation', 'row_data', 'frontmatter', 'changed_by'))
$$;

-- What a refusal calls a table and a column (the names the refusals have always used).
CREATE FUNCTION brain_private.deny_table_label(tbl text) RETURNS text
LANGUAGE sql IMMUTABLE
AS $$
  SELECT CASE tbl
    WHEN 'topics' THEN 'topic' WHEN 'episodes' THEN 'episode' WHEN 'topic_tags' THEN 'tag'
    WHEN 'links' THEN 'link' WHEN 'sources' THEN 'source' WHEN 'documents' THEN 'document'
    WHEN 'raw_data' THEN 'raw data' WHEN 'outbox' THEN 'upcast' WHEN 'versions' THEN 'version'
    WHEN 'gbrain_pages' THEN 'imported page' WHEN 'gbrain_files' THEN 'imported file'
    WHEN 'gbrain_ingest_log' THEN 'ingest record'
    ELSE pg_catalog.replace(tbl, '_', ' ')
  END
$$;

CREATE FUNCTION brain_private.deny_field_label(tbl text, col text) RETURNS text
LANGUAGE sql IMMUTABLE
AS $$
  SELECT CASE
    WHEN tbl = 'links' AND col = 'to_slug' THEN 'target'
    WHEN tbl = 'links' AND col = 'to_subject' THEN 'target subject'
    WHEN tbl = 'outbox' AND col = 'detail' THEN 'decision'
    WHEN tbl = 'outbox' AND col = 'app_operation' THEN 'operation'
    WHEN tbl = 'outbox' AND col = 'row_id' THEN 'row'
    WHEN col = 'rel_path' THEN 'path'
    WHEN col IN ('original', 'bytes') THEN 'file'
    WHEN col = 'source_ref' THEN 'source reference'
    WHEN col = 'pages_updated' THEN 'pages'
    ELSE pg_catalog.replace(col, '_', ' ')
  END
$$;

-- The generic scan, for a table the triggers below do not know: every column of the row
-- that can carry text (text of any kind, JSON decoded as above, bytes as text, arrays and
-- anything else with a text form; not numbers, booleans, dates and times, uuids, full-text
-- and embedding vectors), read from the catalog. The known tables take a faster path with
-- their columns listed; test/isolation-side-doors.test.ts writes a listed word into every
-- such column of every personal table, read from the catalog too, so a column a later
-- migration adds and nobody lists fails that test.
CREATE FUNCTION brain_private.deny_scan(rel oid, tbl text, r anyelement) RETURNS void
LANGUAGE plpgsql STABLE
AS $$
DECLARE
  c record;
  fields text[] := '{}';
  texts text[] := '{}';
  v text;
BEGIN
  FOR c IN
    SELECT a.attname::text AS name, t.typname::text AS typ
      FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
     WHERE a.attrelid = rel AND a.attnum > 0 AND NOT a.attisdropped
       AND t.typcategory NOT IN ('N', 'B', 'D', 'T')
       AND t.typname NOT IN ('tsvector', 'uuid', 'vector', 'halfvec', 'sparsevec')
       AND NOT brain_private.deny_unscanned(tbl, a.attname::text)
     ORDER BY a.attnum
  LOOP
    EXECUTE pg_catalog.format(CASE
        WHEN c.typ IN ('json', 'jsonb') THEN 'SELECT brain_private.json_text(($1).%I::json)'
        WHEN c.typ = 'bytea' THEN 'SELECT brain_private.bytes_text(($1).%I)'
        ELSE 'SELECT ($1).%I::text'
      END, c.name) INTO v USING r;
    fields := fields || brain_private.deny_field_label(tbl, c.name);
    texts := texts || v;
  END LOOP;
  PERFORM brain_private.deny_check(brain_private.deny_table_label(tbl), fields, texts);
END
$$;

-- The deny-list triggers, on every knowledge table, the outbox and the versions: a no-op
-- outside personal. Same names and contracts as before; every column that can carry text
-- is now scanned: what was missing (the outbox's operation, a document's media type, the
-- link's target subject and relation, a merged card's target, the tag-like vocabulary
-- columns, the versions' reason, the import tables' JSON and fingerprints), and JSON
-- decoded. Not scanned (brain_private.deny_unscanned): what no writer controls.
CREATE OR REPLACE FUNCTION brain_private.deny_guard() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF TG_TABLE_SCHEMA <> 'personal' THEN RETURN NEW; END IF;
  CASE TG_TABLE_NAME
    WHEN 'topics' THEN
      PERFORM brain_private.deny_check('topic',
        ARRAY['slug', 'kind', 'kind class', 'title', 'summary', 'body', 'timeline', 'frontmatter', 'merged into'],
        ARRAY[NEW.slug, NEW.kind, NEW.kind_class, NEW.title, NEW.summary, NEW.body, NEW.timeline, brain_private.json_text(NEW.frontmatter), NEW.merged_into]);
    WHEN 'episodes' THEN
      PERFORM brain_private.deny_check('episode', ARRAY['kind', 'kind class', 'title', 'summary', 'detail', 'source label'],
        ARRAY[NEW.kind, NEW.kind_class, NEW.title, NEW.summary, NEW.detail, NEW.source_label]);
    WHEN 'topic_tags' THEN
      PERFORM brain_private.deny_check('tag', ARRAY['tag'], ARRAY[NEW.tag]);
    WHEN 'links' THEN
      PERFORM brain_private.deny_check('link', ARRAY['target subject', 'target', 'relation', 'context'],
        ARRAY[NEW.to_subject, NEW.to_slug, NEW.relation, NEW.context]);
    WHEN 'sources' THEN
      PERFORM brain_private.deny_check('source', ARRAY['uri', 'locator', 'quote'], ARRAY[NEW.uri, NEW.locator, NEW.quote]);
    WHEN 'documents' THEN
      PERFORM brain_private.deny_check('document', ARRAY['uri', 'title', 'media type', 'content'],
        ARRAY[NEW.uri, NEW.title, NEW.media_type, NEW.content]);
    WHEN 'raw_data' THEN
      PERFORM brain_private.deny_check('raw data', ARRAY['source', 'data'], ARRAY[NEW.source, brain_private.json_text(NEW.data)]);
    WHEN 'outbox' THEN
      -- Every project reads personal's outbox: an upcast's reason, operation and decision
      -- (set_config('brain.reason' / 'brain.operation' / 'brain.detail')) must not carry project words.
      PERFORM brain_private.deny_check('upcast', ARRAY['row', 'slug', 'reason', 'operation', 'decision'],
        ARRAY[NEW.row_id, NEW.slug, NEW.reason, NEW.app_operation, brain_private.json_text(NEW.detail)]);
    WHEN 'versions' THEN
      PERFORM brain_private.deny_check('version', ARRAY['reason'], ARRAY[NEW.reason]);
    ELSE
      PERFORM brain_private.deny_scan(TG_RELID, TG_TABLE_NAME, NEW);
  END CASE;
  RETURN NEW;
END
$$;

CREATE OR REPLACE FUNCTION brain_private.gbrain_deny_guard() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF TG_TABLE_SCHEMA <> 'personal' THEN RETURN NEW; END IF;
  CASE TG_TABLE_NAME
    WHEN 'gbrain_pages' THEN
      PERFORM brain_private.deny_check('imported page', ARRAY['path', 'file', 'fingerprint', 'imported'],
        ARRAY[NEW.rel_path, brain_private.bytes_text(NEW.original), NEW.fingerprint, brain_private.json_text(NEW.imported)]);
    WHEN 'gbrain_files' THEN
      PERFORM brain_private.deny_check('imported file', ARRAY['path', 'role', 'file', 'fingerprint'],
        ARRAY[NEW.rel_path, NEW.role, brain_private.bytes_text(NEW.bytes), NEW.fingerprint]);
    WHEN 'gbrain_ingest_log' THEN
      PERFORM brain_private.deny_check('ingest record', ARRAY['origin', 'source type', 'source reference', 'pages', 'summary', 'detail'],
        ARRAY[NEW.origin, NEW.source_type, NEW.source_ref, brain_private.json_text(NEW.pages_updated), NEW.summary, NEW.detail]);
    ELSE
      PERFORM brain_private.deny_scan(TG_RELID, TG_TABLE_NAME, NEW);
  END CASE;
  RETURN NEW;
END
$$;

-- ---------------------------------------------------------------------------
-- The history guards below hold for app roles: the roles with the brain's prefix other than
-- the owner. Anyone else is trusted (the owner running migrations, an admin restoring a
-- backup, a human as superuser). They are SECURITY INVOKER, so current_user is the writer
-- (in a login session and under SET LOCAL ROLE alike), and they call only functions every
-- role may execute.

-- BEFORE INSERT OR UPDATE, first of all: ids and timestamps are the database's, not the
-- writer's. TG_ARGV names the columns the table has ('id', 'created_at', 'updated_at').
--  - INSERT: the id must be the one the column's default just drew from its sequence (so
--    OVERRIDING SYSTEM VALUE, or COPY with an id column, cannot plant an id ahead of the
--    sequence or on a deleted card); the one exception is a deleted card or episode coming
--    back under its own id (history.restore), whose created_at then comes from its history.
--    created_at and updated_at are now.
--  - UPDATE: the id cannot change (`SET id = DEFAULT` would cut a card off its versions);
--    created_at keeps its value. updated_at is kept by brain.before_write().
-- Not for the owner or an admin (migrations, backup restores keep ids and times).
CREATE FUNCTION brain.stamp_row() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
  prefix text := (SELECT s.value FROM brain.settings s WHERE s.key = 'role_prefix');
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
    seq := pg_get_serial_sequence(format('%I.%I', TG_TABLE_SCHEMA, TG_TABLE_NAME), 'id');
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

-- BEFORE UPDATE on personal's tables other than cards: a project adds to them but does not
-- change them, because only cards (topics, episodes) keep versions. Column grants already
-- leave a project no UPDATE on documents, tags, sources and the import tables
-- (db/grants/upcast.sql); links.context and raw_data.data keep a column grant so that our
-- INSERT ... ON CONFLICT DO UPDATE statements plan, and this trigger lets such a statement
-- through only when it changes nothing. Personal's own role, the owner and admins pass.
CREATE FUNCTION brain.project_adds_only() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
  prefix text;
BEGIN
  IF TG_TABLE_SCHEMA <> 'personal' OR brain.same_content(OLD, NEW) THEN RETURN NEW; END IF;
  prefix := (SELECT s.value FROM brain.settings s WHERE s.key = 'role_prefix');
  IF prefix IS NULL OR NOT starts_with(current_user::text, prefix) OR current_user::text IN (prefix || 'owner', prefix || 'personal') THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'a project may add % to personal but not change them', replace(TG_TABLE_NAME, '_', ' ')
    USING ERRCODE = '42501',
          HINT = 'Nothing was changed. Only cards and episodes keep versions, so only they may be amended from a project; add a new row, or ask in a personal session.';
END
$$;
