-- A project role in `personal`: it reads the shared knowledge and may add and amend it
-- (an upcast), but never remove it. The absence of DELETE is the point.
-- There is no file granting a project anything on another project: the isolation is the
-- statement that isn't there.
-- Placeholders: {{personal}}, {{role}}, {{owner}}.

GRANT USAGE ON SCHEMA {{personal}} TO {{role}};
GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA {{personal}} TO {{role}};
GRANT USAGE ON ALL SEQUENCES IN SCHEMA {{personal}} TO {{role}};
-- No table-wide UPDATE (this also clears the column grants, given again just below).
REVOKE UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON ALL TABLES IN SCHEMA {{personal}} FROM {{role}};
ALTER DEFAULT PRIVILEGES FOR ROLE {{owner}} IN SCHEMA {{personal}}
  GRANT SELECT, INSERT ON TABLES TO {{role}};
ALTER DEFAULT PRIVILEGES FOR ROLE {{owner}} IN SCHEMA {{personal}}
  REVOKE UPDATE ON TABLES FROM {{role}};
ALTER DEFAULT PRIVILEGES FOR ROLE {{owner}} IN SCHEMA {{personal}}
  GRANT USAGE ON SEQUENCES TO {{role}};

-- UPDATE by column, never on a whole table. A project amends personal's cards (topics,
-- episodes, which keep a version of every change), every column but the ones the database
-- keeps (id, created_at, updated_at, the search vector). links.context and raw_data's data
-- are granted only so that INSERT ... ON CONFLICT DO UPDATE plans; brain.project_adds_only()
-- refuses any change they would make (docs/isolation.md). Why columns: LOCK TABLE in any
-- mode stronger than ROW EXCLUSIVE needs a table-wide UPDATE (or DELETE, TRUNCATE), so
-- without one a project cannot lock personal's tables against the other subjects.
DO $$
DECLARE
  t record;
  cols text;
BEGIN
  FOR t IN
    SELECT * FROM (VALUES
      ('topics', NULL::text[]),
      ('episodes', NULL::text[]),
      ('links', ARRAY['context']),
      ('raw_data', ARRAY['data', 'fetched_at'])
    ) AS v (name, only_cols)
  LOOP
    SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) INTO cols
      FROM pg_catalog.pg_attribute a
     WHERE a.attrelid = format('%s.%I', '{{personal}}', t.name)::regclass AND a.attnum > 0 AND NOT a.attisdropped
       AND CASE WHEN t.only_cols IS NULL THEN a.attname NOT IN ('id', 'created_at', 'updated_at', 'search')
                ELSE a.attname = ANY (t.only_cols) END;
    EXECUTE format('GRANT UPDATE (%s) ON {{personal}}.%I TO {{role}}', cols, t.name);
  END LOOP;
END
$$;

-- A project's upcast leaves history in personal's outbox and versions; it cannot alter it.
REVOKE UPDATE, DELETE ON {{personal}}.versions, {{personal}}.outbox FROM {{role}};

-- Embeddings are derived data each subject's own worker keeps (migrations/subject/0003):
-- a project reads personal's chunks for search but never writes them. The tables exist
-- only where pgvector does, hence the check.
DO $$
BEGIN
  IF to_regclass('{{personal}}.chunks') IS NOT NULL THEN
    REVOKE INSERT, UPDATE ON {{personal}}.chunks, {{personal}}.embedding_state FROM {{role}};
  END IF;
END
$$;

-- Proposals belong to the subject whose session made them; a project neither reads nor
-- writes personal's (personal's own server settles those).
REVOKE ALL ON {{personal}}.proposals FROM {{role}};
