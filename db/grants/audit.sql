-- The read-only audit role (for humans with psql, backups and a future dashboard) also
-- reads the shared metadata: migrations, subjects, kinds, settings. Never brain_private.
-- Placeholders: {{audit}}, {{owner}}.
GRANT SELECT ON ALL TABLES IN SCHEMA brain TO {{audit}};
ALTER DEFAULT PRIVILEGES FOR ROLE {{owner}} IN SCHEMA brain GRANT SELECT ON TABLES TO {{audit}};
