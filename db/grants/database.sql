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

-- Large objects and advisory locks are side doors, not features any app role uses: a large
-- object is text no deny-list or outbox sees, which its owner can GRANT to another subject;
-- an advisory lock lets any role hold the bootstrap's lock and stall `brain init`. EXECUTE
-- on their functions (including the fast-path calls behind psql's \lo_import) is taken from
-- PUBLIC in this database. Superusers keep them; the owner role gets the advisory locks
-- back, for an admin that bootstraps through its membership. Only a superuser may revoke on
-- pg_catalog's functions: under a lesser admin this does nothing (a warning), and
-- db/bootstrap.ts reports it.
DO $$
DECLARE
  f record;
BEGIN
  FOR f IN
    SELECT p.oid::regprocedure AS sig, p.proname ~ '^pg_(try_)?advisory_' AS advisory FROM pg_catalog.pg_proc p
     WHERE p.pronamespace = 'pg_catalog'::regnamespace
       AND (p.proname ~ '^lo_' OR p.proname IN ('loread', 'lowrite') OR p.proname ~ '^pg_(try_)?advisory_')
  LOOP
    EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', f.sig);
    IF f.advisory THEN EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO %s', f.sig, '{{owner}}'); END IF;
  END LOOP;
END
$$;
