-- Inserts are audited once per statement (migrations/global/0012_audit_statements.sql):
-- every audited table's row trigger keeps UPDATE and DELETE, and a statement trigger over the
-- new rows takes INSERT. Same names as before plus one, so the firing order by name holds.
DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['topics', 'episodes', 'episode_topics', 'topic_tags', 'links', 'documents', 'sources', 'raw_data',
                           'gbrain_pages', 'gbrain_files', 'gbrain_ingest_log', 'proposals'] LOOP
    EXECUTE format('DROP TRIGGER %I ON %I', t || '_90_audit', t);
    EXECUTE format('CREATE TRIGGER %I AFTER UPDATE OR DELETE ON %I FOR EACH ROW EXECUTE FUNCTION brain.audit_row()', t || '_90_audit', t);
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS audit_new FOR EACH STATEMENT EXECUTE FUNCTION brain.audit_inserts()',
      t || '_91_audit_inserts', t);
  END LOOP;
END
$$;
