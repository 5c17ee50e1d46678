-- A subject role in its own schema: read and write its knowledge, nothing more.
-- No TRUNCATE, no REFERENCES, no TRIGGER, no CREATE; the owner role owns every object.
-- Placeholders: {{schema}}, {{role}}, {{owner}}, {{audit}}.

GRANT USAGE ON SCHEMA {{schema}} TO {{role}};
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA {{schema}} TO {{role}};
GRANT USAGE ON ALL SEQUENCES IN SCHEMA {{schema}} TO {{role}};
REVOKE TRUNCATE, REFERENCES, TRIGGER ON ALL TABLES IN SCHEMA {{schema}} FROM {{role}};
-- Tables added by later migrations get the same grants.
ALTER DEFAULT PRIVILEGES FOR ROLE {{owner}} IN SCHEMA {{schema}}
  GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO {{role}};
ALTER DEFAULT PRIVILEGES FOR ROLE {{owner}} IN SCHEMA {{schema}}
  GRANT USAGE ON SEQUENCES TO {{role}};

-- The audit role reads every subject, and writes nothing.
GRANT USAGE ON SCHEMA {{schema}} TO {{audit}};
GRANT SELECT ON ALL TABLES IN SCHEMA {{schema}} TO {{audit}};
ALTER DEFAULT PRIVILEGES FOR ROLE {{owner}} IN SCHEMA {{schema}}
  GRANT SELECT ON TABLES TO {{audit}};

-- History is append-only: rows are added by triggers (as the writer), never changed.
REVOKE UPDATE, DELETE ON {{schema}}.versions, {{schema}}.outbox FROM {{role}};
