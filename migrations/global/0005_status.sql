-- What a subject's server needs for its readiness report, without reading brain_private
-- or the migrations table itself: which migrations are applied per scope and how many
-- deny-list rules are loaded (a count, never the rules). Subject and migration names
-- are not knowledge: pg_namespace shows the schemas to everyone anyway.
CREATE FUNCTION brain.schema_status() RETURNS TABLE (scope text, versions integer[], deny_rules integer)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = pg_catalog, pg_temp
AS $$
  SELECT m.scope, array_agg(m.version ORDER BY m.version), (SELECT count(*)::int FROM brain_private.deny_rules)
    FROM brain.schema_migrations m
   GROUP BY m.scope
$$;
