-- Side doors (issue 15): attaches the guards of migrations/global/0010_side_doors.sql to
-- this subject's tables. Trigger names are ordered on purpose (same-event triggers fire by
-- name): the stamp runs first, so every later trigger sees the database's id and times.

-- Ids and timestamps are the database's, not the writer's (brain.stamp_row). The arguments
-- name the columns each table has. chunks exists only where pgvector does.
DO $$
DECLARE
  t record;
BEGIN
  FOR t IN
    SELECT * FROM (VALUES
      ('topics', ARRAY['id', 'created_at', 'updated_at']),
      ('episodes', ARRAY['id', 'created_at', 'updated_at']),
      ('links', ARRAY['id', 'created_at']),
      ('documents', ARRAY['id', 'created_at']),
      ('sources', ARRAY['id', 'created_at']),
      ('raw_data', ARRAY['id']),
      ('gbrain_files', ARRAY['id']),
      ('gbrain_ingest_log', ARRAY['id', 'created_at']),
      ('chunks', ARRAY['id', 'created_at'])
    ) AS v (name, cols)
  LOOP
    CONTINUE WHEN to_regclass(t.name) IS NULL;
    EXECUTE format('CREATE TRIGGER %I BEFORE INSERT OR UPDATE ON %I FOR EACH ROW EXECUTE FUNCTION brain.stamp_row(%s)',
      t.name || '_05_stamp', t.name, (SELECT string_agg(quote_literal(c), ', ') FROM unnest(t.cols) AS c));
  END LOOP;
END
$$;

-- In personal a project amends cards only (they keep versions); everything else it may add
-- to but not change (brain.project_adds_only, a no-op outside personal).
DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['topic_tags', 'episode_topics', 'links', 'documents', 'sources', 'raw_data', 'gbrain_pages', 'gbrain_files', 'gbrain_ingest_log'] LOOP
    EXECUTE format('CREATE TRIGGER %I BEFORE UPDATE ON %I FOR EACH ROW EXECUTE FUNCTION brain.project_adds_only()', t || '_06_adds_only', t);
  END LOOP;
END
$$;

-- The versions' reason is the writer's text too (set_config('brain.reason', ...)): scanned
-- in personal like the outbox's (brain_private.deny_guard scans only the reason here).
CREATE TRIGGER versions_20_deny BEFORE INSERT ON versions FOR EACH ROW EXECUTE FUNCTION brain_private.deny_guard();
