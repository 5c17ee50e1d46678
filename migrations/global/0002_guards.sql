-- The guards every subject's tables share: the deny-list (in brain_private, which no app
-- role can read), the audit outbox and version triggers, and the full-text vector.
-- Trigger functions are not callable directly and need no EXECUTE grant; the few helper
-- functions they call are pure and granted explicitly (db/grants/role.sql).

-- ---------------------------------------------------------------------------
-- Deny-list: synced from deny-list.yaml by the bootstrap. Rules are regular expressions;
-- subject tokens are compiled into one rule per subject. No app role has USAGE here.
CREATE TABLE brain_private.deny_rules (
  id       integer PRIMARY KEY,
  category text NOT NULL,           -- 'pii:email', 'subject-token', ...
  label    text NOT NULL,           -- what the refusal says: 'an e-mail address'
  pattern  text NOT NULL,
  check_fn text CHECK (check_fn IN ('luhn'))
);
-- One alternation of every allowed string (escaped), removed from the text before scanning.
CREATE TABLE brain_private.deny_allow (
  id      integer PRIMARY KEY CHECK (id = 1),
  pattern text NOT NULL
);

CREATE FUNCTION brain_private.luhn(candidate text) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog
AS $$
DECLARE
  digits text := regexp_replace(candidate, '[^0-9]', '', 'g');
  total int := 0;
  d int;
  i int;
BEGIN
  IF length(digits) < 13 OR length(digits) > 19 THEN RETURN false; END IF;
  FOR i IN 1 .. length(digits) LOOP
    d := substr(digits, length(digits) - i + 1, 1)::int;
    IF i % 2 = 0 THEN
      d := d * 2;
      IF d > 9 THEN d := d - 9; END IF;
    END IF;
    total := total + d;
  END LOOP;
  RETURN total % 10 = 0;
END
$$;

-- The label of the first rule the text breaks, or NULL. Runs as the owner (it reads
-- brain_private), so its search_path is pinned and every name is qualified.
CREATE FUNCTION brain_private.deny_hit(input text) RETURNS text
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  t text := input;
  allow text;
  r record;
  m text[];
BEGIN
  IF t IS NULL OR t = '' THEN RETURN NULL; END IF;
  SELECT a.pattern INTO allow FROM brain_private.deny_allow a WHERE a.id = 1;
  IF allow IS NOT NULL AND allow <> '' THEN
    t := regexp_replace(t, allow, ' ', 'gi');
  END IF;
  FOR r IN SELECT d.label, d.pattern, d.check_fn FROM brain_private.deny_rules d ORDER BY d.id LOOP
    IF t ~* r.pattern THEN
      IF r.check_fn IS NULL THEN RETURN r.label; END IF;
      FOR m IN SELECT regexp_matches(t, r.pattern, 'gi') LOOP
        IF r.check_fn = 'luhn' AND brain_private.luhn(m[1]) THEN RETURN r.label; END IF;
      END LOOP;
    END IF;
  END LOOP;
  RETURN NULL;
END
$$;

-- Refuses a write into `personal` that contains anything on the deny-list. The message
-- names the field and the rule's category, never the matched text or a subject.
CREATE FUNCTION brain_private.deny_check(tbl text, fields text[], texts text[]) RETURNS void
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
  i int;
  hit text;
BEGIN
  FOR i IN 1 .. coalesce(array_length(texts, 1), 0) LOOP
    hit := brain_private.deny_hit(texts[i]);
    IF hit IS NOT NULL THEN
      RAISE EXCEPTION 'refused by the deny-list: the % of this % write into personal contains %', fields[i], tbl, hit
        USING ERRCODE = 'BRD01',
              DETAIL = hit,
              HINT = 'Nothing was written. Keep this card in its project instead; if this is a false positive, add the exact string under allow: in deny-list.yaml.';
    END IF;
  END LOOP;
END
$$;

-- The trigger on every knowledge table: a no-op outside `personal`.
CREATE FUNCTION brain_private.deny_guard() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF TG_TABLE_SCHEMA <> 'personal' THEN RETURN NEW; END IF;
  CASE TG_TABLE_NAME
    WHEN 'topics' THEN
      PERFORM brain_private.deny_check('topic', ARRAY['slug', 'title', 'summary', 'body', 'timeline', 'frontmatter'],
        ARRAY[NEW.slug, NEW.title, NEW.summary, NEW.body, NEW.timeline, NEW.frontmatter::text]);
    WHEN 'episodes' THEN
      PERFORM brain_private.deny_check('episode', ARRAY['title', 'summary', 'detail', 'source label'],
        ARRAY[NEW.title, NEW.summary, NEW.detail, NEW.source_label]);
    WHEN 'topic_tags' THEN
      PERFORM brain_private.deny_check('tag', ARRAY['tag'], ARRAY[NEW.tag]);
    WHEN 'links' THEN
      PERFORM brain_private.deny_check('link', ARRAY['target', 'context'], ARRAY[NEW.to_slug, NEW.context]);
    WHEN 'sources' THEN
      PERFORM brain_private.deny_check('source', ARRAY['uri', 'locator', 'quote'], ARRAY[NEW.uri, NEW.locator, NEW.quote]);
    WHEN 'documents' THEN
      PERFORM brain_private.deny_check('document', ARRAY['uri', 'title', 'content'], ARRAY[NEW.uri, NEW.title, NEW.content]);
    WHEN 'raw_data' THEN
      PERFORM brain_private.deny_check('raw data', ARRAY['source', 'data'], ARRAY[NEW.source, NEW.data::text]);
    WHEN 'outbox' THEN
      -- Every project reads personal's outbox: an upcast's reason must not carry project words.
      PERFORM brain_private.deny_check('upcast', ARRAY['reason', 'decision'], ARRAY[NEW.reason, NEW.detail::text]);
    ELSE
      RAISE EXCEPTION 'deny_guard is not configured for table %', TG_TABLE_NAME;
  END CASE;
  RETURN NEW;
END
$$;

-- ---------------------------------------------------------------------------
-- Change detection, so that re-writing the same content records no version and no audit row.
-- json columns are compared as text: key order is content too.
CREATE FUNCTION brain.same_content(a anyelement, b anyelement) RETURNS boolean
LANGUAGE sql IMMUTABLE
SET search_path = pg_catalog
AS $$
  SELECT (to_jsonb(a) - 'updated_at' - 'search') = (to_jsonb(b) - 'updated_at' - 'search')
     AND (row_to_json(a) -> 'frontmatter')::text IS NOT DISTINCT FROM (row_to_json(b) -> 'frontmatter')::text
     AND (row_to_json(a) -> 'data')::text IS NOT DISTINCT FROM (row_to_json(b) -> 'data')::text
$$;

-- The application's reason, operation and decision for this transaction (set_config(..., true)).
CREATE FUNCTION brain.tx_setting(name text) RETURNS text
LANGUAGE sql STABLE
SET search_path = pg_catalog
AS $$ SELECT nullif(current_setting('brain.' || name, true), '') $$;

-- BEFORE INSERT OR UPDATE on topics and episodes: keep updated_at honest and the
-- weighted full-text vector current (title A, summary B, body or detail C).
CREATE FUNCTION brain.before_write() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
  cfg regconfig := brain.text_search_config();
BEGIN
  IF TG_OP = 'UPDATE' THEN
    IF brain.same_content(OLD, NEW) THEN
      NEW.updated_at := OLD.updated_at;
      RETURN NEW;
    END IF;
    NEW.updated_at := now();
  END IF;
  IF TG_TABLE_NAME = 'topics' THEN
    NEW.search := setweight(to_tsvector(cfg, coalesce(NEW.title, '') || ' ' || replace(NEW.slug, '/', ' ') ), 'A')
               || setweight(to_tsvector(cfg, coalesce(NEW.summary, '')), 'B')
               || setweight(to_tsvector(cfg, coalesce(NEW.body, '')), 'C')
               || setweight(to_tsvector(cfg, coalesce(NEW.timeline, '')), 'D');
  ELSE
    NEW.search := setweight(to_tsvector(cfg, coalesce(NEW.title, '')), 'A')
               || setweight(to_tsvector(cfg, coalesce(NEW.summary, '')), 'B')
               || setweight(to_tsvector(cfg, coalesce(NEW.detail, '') || ' ' || coalesce(NEW.source_label, '')), 'C');
  END IF;
  RETURN NEW;
END
$$;

-- BEFORE UPDATE OR DELETE on topics and episodes: the previous row goes to versions.
-- The frontmatter is kept as json text beside the row, so its key order survives a restore.
-- A deleted card also keeps its tags and outgoing links (they go with it by cascade), so
-- restore brings the whole card back.
CREATE FUNCTION brain.keep_version() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
  extra jsonb := '{}';
BEGIN
  IF TG_OP = 'UPDATE' AND brain.same_content(OLD, NEW) THEN RETURN NEW; END IF;
  IF TG_OP = 'DELETE' AND TG_TABLE_NAME = 'topics' THEN
    EXECUTE format(
      'SELECT jsonb_build_object(''tags'', coalesce((SELECT jsonb_agg(tag ORDER BY tag) FROM %1$I.topic_tags WHERE topic_id = $1), ''[]''),
                                 ''links'', coalesce((SELECT jsonb_agg(jsonb_build_object(''to_subject'', to_subject, ''to_slug'', to_slug, ''relation'', relation, ''context'', context) ORDER BY id)
                                                       FROM %1$I.links WHERE from_topic_id = $1), ''[]''))', TG_TABLE_SCHEMA)
      INTO extra USING OLD.id;
  END IF;
  EXECUTE format('INSERT INTO %I.versions (entity, entity_id, operation, row_data, frontmatter) VALUES ($1, $2, $3, $4, $5)', TG_TABLE_SCHEMA)
    USING CASE TG_TABLE_NAME WHEN 'topics' THEN 'topic' ELSE 'episode' END, OLD.id, TG_OP,
          (to_jsonb(OLD) - 'search' - 'frontmatter') || extra, row_to_json(OLD) -> 'frontmatter';
  RETURN CASE TG_OP WHEN 'DELETE' THEN OLD ELSE NEW END;
END
$$;

-- AFTER INSERT OR UPDATE OR DELETE on every knowledge table: one outbox row per change.
-- SECURITY INVOKER on purpose: the outbox's own trigger records current_user, the writer.
CREATE FUNCTION brain.audit_row() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
  r json := row_to_json(CASE TG_OP WHEN 'DELETE' THEN OLD ELSE NEW END);
  row_id text;
BEGIN
  IF TG_OP = 'UPDATE' AND brain.same_content(OLD, NEW) THEN RETURN NULL; END IF;
  row_id := coalesce(r ->> 'id', concat_ws(':', r ->> 'episode_id', r ->> 'topic_id', r ->> 'tag'));
  EXECUTE format('INSERT INTO %I.outbox (operation, table_name, row_id, slug) VALUES ($1, $2, $3, $4)', TG_TABLE_SCHEMA)
    USING TG_OP, TG_TABLE_NAME, row_id, r ->> 'slug';
  RETURN NULL;
END
$$;

-- BEFORE each statement on a knowledge table: remember who is writing. Postgres runs
-- cascaded foreign-key actions (a card's tags going with it) as the table owner, so the
-- history of those rows takes its actor from here. A writer cannot plant another name:
-- its own statement overwrites the setting before any cascade runs.
CREATE FUNCTION brain.note_actor() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
BEGIN
  IF current_user::text <> (SELECT s.value FROM brain.settings s WHERE s.key = 'role_prefix') || 'owner' THEN
    PERFORM set_config('brain.actor', current_user, true);
  END IF;
  RETURN NULL;
END
$$;

-- BEFORE INSERT on outbox and versions: only our triggers write here (trigger depth),
-- and who, when and why are taken from the session, never from the row offered.
CREATE FUNCTION brain.stamp_history() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
DECLARE
  prefix text := (SELECT s.value FROM brain.settings s WHERE s.key = 'role_prefix');
  writer text := CASE WHEN current_user::text = prefix || 'owner' THEN coalesce(brain.tx_setting('actor'), current_user) ELSE current_user END;
BEGIN
  IF pg_trigger_depth() < 2 THEN
    RAISE EXCEPTION '%.% is written by triggers only', TG_TABLE_SCHEMA, TG_TABLE_NAME USING ERRCODE = '42501';
  END IF;
  IF TG_TABLE_NAME = 'outbox' THEN
    NEW.actor := writer;
    NEW.at := now();
    NEW.txid := txid_current();
    NEW.reason := brain.tx_setting('reason');
    NEW.app_operation := brain.tx_setting('operation');
    NEW.detail := brain.tx_setting('detail')::json;
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

-- History is append-only: no UPDATE or DELETE, whoever asks.
CREATE FUNCTION brain.refuse_change() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
BEGIN
  RAISE EXCEPTION '%.% is append-only', TG_TABLE_SCHEMA, TG_TABLE_NAME USING ERRCODE = '42501';
END
$$;

-- Links stored in a subject point into that subject or into personal; links stored in
-- personal point only into personal, so an upcast cannot carry a project's slug across.
CREATE FUNCTION brain.links_guard() RETURNS trigger
LANGUAGE plpgsql
SET search_path = pg_catalog
AS $$
BEGIN
  IF NEW.to_subject <> TG_TABLE_SCHEMA AND NEW.to_subject <> 'personal' THEN
    RAISE EXCEPTION 'a link stored in % may point only into % or personal, not into %', TG_TABLE_SCHEMA, TG_TABLE_SCHEMA,
      CASE WHEN TG_TABLE_SCHEMA = 'personal' THEN 'a project' ELSE 'another subject' END
      USING ERRCODE = '23514', HINT = 'Link to a card in this subject or in personal.';
  END IF;
  RETURN NEW;
END
$$;
