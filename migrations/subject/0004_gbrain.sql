-- GBrain import/export bookkeeping (services/gbrain/import.ts, export.ts). The knowledge
-- itself lives in topics, episodes, links, tags and raw_data like any other; these tables
-- keep what a byte-identical export needs and what the next import compares against.

-- One row per imported page, keyed by its topic (deleting the card forgets the file).
CREATE TABLE gbrain_pages (
  topic_id    bigint PRIMARY KEY REFERENCES topics (id) ON DELETE CASCADE,
  -- POSIX path inside the brain directory: where export writes the page back.
  rel_path    text NOT NULL UNIQUE CHECK (length(rel_path) > 0),
  -- The file exactly as read (BOM, line endings, encoding and all).
  original    bytea NOT NULL,
  sha256      text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  -- Hash of the page content the card rendered to right after import: while the card
  -- still renders to the same content, export writes `original` back unchanged.
  fingerprint text NOT NULL,
  -- What the last import wrote for this page (title, tags, episode ids, link targets,
  -- raw sources), so a re-import removes only what the file no longer has and never
  -- touches what was added in claude-brain.
  imported    json NOT NULL DEFAULT '{}',
  imported_at timestamptz NOT NULL DEFAULT now()
);

-- Files kept verbatim: index.md, log.md, schema.md, README.md (special) and .raw/ sidecars.
CREATE TABLE gbrain_files (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  rel_path    text NOT NULL UNIQUE CHECK (length(rel_path) > 0),
  role        text NOT NULL CHECK (role IN ('special', 'sidecar')),
  -- A sidecar's page; NULL for special files and for sidecars whose page is missing.
  topic_id    bigint REFERENCES topics (id) ON DELETE CASCADE,
  bytes       bytea NOT NULL,
  sha256      text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  -- Sidecars: hash of the page's raw_data rows right after import (same idea as above).
  fingerprint text,
  imported_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX gbrain_files_topic_idx ON gbrain_files (topic_id);

-- GBrain's ingest_log: the entries of log.md, and what `brain ingest` stored.
CREATE TABLE gbrain_ingest_log (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  origin        text NOT NULL CHECK (origin IN ('log.md', 'cli')),
  logged_at     timestamptz NOT NULL,
  date_only     boolean NOT NULL DEFAULT true,
  source_type   text NOT NULL CHECK (length(btrim(source_type)) > 0),
  source_ref    text NOT NULL DEFAULT '',
  pages_updated json NOT NULL DEFAULT '[]',
  summary       text NOT NULL DEFAULT '',
  detail        text NOT NULL DEFAULT '',
  document_id   bigint REFERENCES documents (id) ON DELETE SET NULL,
  -- 1-based line in log.md, for entries read from it.
  line          integer,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX gbrain_ingest_log_at_idx ON gbrain_ingest_log (logged_at);

-- The same guards as every knowledge table (see 0002): who writes, the deny-list in
-- personal, and one outbox row per change.
DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['gbrain_pages', 'gbrain_files', 'gbrain_ingest_log'] LOOP
    EXECUTE format('CREATE TRIGGER %I BEFORE INSERT OR UPDATE OR DELETE ON %I FOR EACH STATEMENT EXECUTE FUNCTION brain.note_actor()', t || '_00_actor', t);
    EXECUTE format('CREATE TRIGGER %I BEFORE INSERT OR UPDATE ON %I FOR EACH ROW EXECUTE FUNCTION brain_private.gbrain_deny_guard()', t || '_20_deny', t);
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE ON %I FOR EACH ROW EXECUTE FUNCTION brain.audit_row()', t || '_90_audit', t);
  END LOOP;
END
$$;
