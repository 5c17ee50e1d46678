-- The deny-list for the GBrain import tables (migrations/subject/0004_gbrain.sql).
--
-- A trigger function of their own rather than a CREATE OR REPLACE of deny_guard(): a
-- copy of deny_guard() here would silently drop whatever another migration adds to it.
-- The checks are the same brain_private.deny_check() every other table goes through.

-- The text of a stored file, for scanning: UTF-8 when it is, else every byte as an escape,
-- so a file that is not valid UTF-8 (or holds a NUL) is still scanned, never skipped.
CREATE FUNCTION brain_private.bytes_text(b bytea) RETURNS text
LANGUAGE plpgsql IMMUTABLE
SET search_path = pg_catalog
AS $$
BEGIN
  IF b IS NULL THEN RETURN NULL; END IF;
  RETURN convert_from(b, 'UTF8');
EXCEPTION WHEN OTHERS THEN
  RETURN encode(b, 'escape');
END
$$;

-- A no-op outside `personal`, like deny_guard().
CREATE FUNCTION brain_private.gbrain_deny_guard() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
  IF TG_TABLE_SCHEMA <> 'personal' THEN RETURN NEW; END IF;
  CASE TG_TABLE_NAME
    WHEN 'gbrain_pages' THEN
      PERFORM brain_private.deny_check('imported page', ARRAY['path', 'file'],
        ARRAY[NEW.rel_path, brain_private.bytes_text(NEW.original)]);
    WHEN 'gbrain_files' THEN
      PERFORM brain_private.deny_check('imported file', ARRAY['path', 'file'],
        ARRAY[NEW.rel_path, brain_private.bytes_text(NEW.bytes)]);
    WHEN 'gbrain_ingest_log' THEN
      PERFORM brain_private.deny_check('ingest record', ARRAY['source type', 'source reference', 'pages', 'summary', 'detail'],
        ARRAY[NEW.source_type, NEW.source_ref, NEW.pages_updated::text, NEW.summary, NEW.detail]);
    ELSE
      RAISE EXCEPTION 'gbrain_deny_guard is not configured for table %', TG_TABLE_NAME;
  END CASE;
  RETURN NEW;
END
$$;
