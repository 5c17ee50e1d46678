-- brain.stamp_row is told the sequence of each table's id (migrations/global/0013_role_prefix.sql):
-- the same triggers as 0007_side_doors.sql, with 'seq=NAME' as their last argument where the
-- table has an id. The name is unqualified: the trigger qualifies it with the table's schema.
DO $$
DECLARE
  t record;
  seq text;
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
    SELECT c.relname INTO STRICT seq FROM pg_class c WHERE c.oid = pg_get_serial_sequence(t.name, 'id')::regclass;
    EXECUTE format('DROP TRIGGER %I ON %I', t.name || '_05_stamp', t.name);
    EXECUTE format('CREATE TRIGGER %I BEFORE INSERT OR UPDATE ON %I FOR EACH ROW EXECUTE FUNCTION brain.stamp_row(%s)',
      t.name || '_05_stamp', t.name, (SELECT string_agg(quote_literal(c), ', ') FROM unnest(t.cols || ('seq=' || seq)) AS c));
  END LOOP;
END
$$;
