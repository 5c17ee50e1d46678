-- A project role in `personal`: it reads the shared knowledge and may add and amend it
-- (an upcast), but never remove it. The absence of DELETE is the point.
-- There is no file granting a project anything on another project: the isolation is the
-- statement that isn't there.
-- Placeholders: {{personal}}, {{role}}, {{owner}}.

GRANT USAGE ON SCHEMA {{personal}} TO {{role}};
GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA {{personal}} TO {{role}};
GRANT USAGE ON ALL SEQUENCES IN SCHEMA {{personal}} TO {{role}};
REVOKE DELETE, TRUNCATE, REFERENCES, TRIGGER ON ALL TABLES IN SCHEMA {{personal}} FROM {{role}};
ALTER DEFAULT PRIVILEGES FOR ROLE {{owner}} IN SCHEMA {{personal}}
  GRANT SELECT, INSERT, UPDATE ON TABLES TO {{role}};
ALTER DEFAULT PRIVILEGES FOR ROLE {{owner}} IN SCHEMA {{personal}}
  GRANT USAGE ON SEQUENCES TO {{role}};

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
