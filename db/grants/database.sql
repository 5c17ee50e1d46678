-- Database-wide hardening, applied on every bootstrap (every statement is idempotent).
-- Placeholders: {{database}}, {{owner}}.

-- Nobody connects or creates temporary objects by default; CONNECT is granted per role below.
REVOKE ALL ON DATABASE {{database}} FROM PUBLIC;
-- The public schema is not ours to use: no role may create or look up anything in it.
REVOKE ALL ON SCHEMA public FROM PUBLIC;
-- Functions we create are not executable by PUBLIC; each grant is explicit.
ALTER DEFAULT PRIVILEGES FOR ROLE {{owner}} REVOKE EXECUTE ON FUNCTIONS FROM PUBLIC;
REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA brain FROM PUBLIC;
REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA brain_private FROM PUBLIC;
REVOKE ALL ON SCHEMA brain, brain_private, brain_ext FROM PUBLIC;
