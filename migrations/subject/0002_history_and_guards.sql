-- History (versions, outbox) and the guards, in every subject schema.

-- The weighted full-text vector, kept by brain.before_write().
ALTER TABLE topics ADD COLUMN search tsvector NOT NULL DEFAULT ''::tsvector;
ALTER TABLE episodes ADD COLUMN search tsvector NOT NULL DEFAULT ''::tsvector;
CREATE INDEX topics_search_idx ON topics USING gin (search);
CREATE INDEX episodes_search_idx ON episodes USING gin (search);
DROP TRIGGER topics_touch ON topics;
DROP TRIGGER episodes_touch ON episodes;

-- Every update or delete of a topic or an episode keeps the previous row.
CREATE TABLE versions (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  entity      text NOT NULL CHECK (entity IN ('topic', 'episode')),
  entity_id   bigint NOT NULL,
  operation   text NOT NULL CHECK (operation IN ('UPDATE', 'DELETE')),
  row_data    jsonb NOT NULL,
  frontmatter json,
  changed_by  text NOT NULL DEFAULT current_user,
  changed_at  timestamptz NOT NULL DEFAULT now(),
  reason      text
);
CREATE INDEX versions_entity_idx ON versions (entity, entity_id, id DESC);

-- The audit outbox: every insert, update and delete on the knowledge tables, with who
-- (the database role), what, when and why. Append-only; written by triggers only.
CREATE TABLE outbox (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at            timestamptz NOT NULL DEFAULT now(),
  txid          bigint NOT NULL DEFAULT 0,
  actor         text NOT NULL DEFAULT current_user,
  operation     text NOT NULL CHECK (operation IN ('INSERT', 'UPDATE', 'DELETE')),
  table_name    text NOT NULL,
  row_id        text NOT NULL,
  slug          text,
  reason        text,
  app_operation text,
  detail        json,
  is_upcast     boolean NOT NULL DEFAULT false,
  flagged       boolean NOT NULL DEFAULT false
);
CREATE INDEX outbox_at_idx ON outbox (at);
CREATE INDEX outbox_flagged_idx ON outbox (id) WHERE flagged;

-- Trigger names are ordered on purpose: Postgres fires same-event triggers by name.
CREATE TRIGGER outbox_10_stamp BEFORE INSERT ON outbox FOR EACH ROW EXECUTE FUNCTION brain.stamp_history();
CREATE TRIGGER outbox_20_deny BEFORE INSERT ON outbox FOR EACH ROW EXECUTE FUNCTION brain_private.deny_guard();
CREATE TRIGGER outbox_append_only BEFORE UPDATE OR DELETE ON outbox FOR EACH ROW EXECUTE FUNCTION brain.refuse_change();
CREATE TRIGGER versions_10_stamp BEFORE INSERT ON versions FOR EACH ROW EXECUTE FUNCTION brain.stamp_history();
CREATE TRIGGER versions_append_only BEFORE UPDATE OR DELETE ON versions FOR EACH ROW EXECUTE FUNCTION brain.refuse_change();

CREATE TRIGGER topics_10_write BEFORE INSERT OR UPDATE ON topics FOR EACH ROW EXECUTE FUNCTION brain.before_write();
CREATE TRIGGER topics_20_deny BEFORE INSERT OR UPDATE ON topics FOR EACH ROW EXECUTE FUNCTION brain_private.deny_guard();
CREATE TRIGGER topics_30_version BEFORE UPDATE OR DELETE ON topics FOR EACH ROW EXECUTE FUNCTION brain.keep_version();
CREATE TRIGGER topics_90_audit AFTER INSERT OR UPDATE OR DELETE ON topics FOR EACH ROW EXECUTE FUNCTION brain.audit_row();

CREATE TRIGGER episodes_10_write BEFORE INSERT OR UPDATE ON episodes FOR EACH ROW EXECUTE FUNCTION brain.before_write();
CREATE TRIGGER episodes_20_deny BEFORE INSERT OR UPDATE ON episodes FOR EACH ROW EXECUTE FUNCTION brain_private.deny_guard();
CREATE TRIGGER episodes_30_version BEFORE UPDATE OR DELETE ON episodes FOR EACH ROW EXECUTE FUNCTION brain.keep_version();
CREATE TRIGGER episodes_90_audit AFTER INSERT OR UPDATE OR DELETE ON episodes FOR EACH ROW EXECUTE FUNCTION brain.audit_row();

CREATE TRIGGER links_10_guard BEFORE INSERT OR UPDATE ON links FOR EACH ROW EXECUTE FUNCTION brain.links_guard();

-- Who writes, noted per statement (see brain.note_actor), on every knowledge table.
DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['topics', 'episodes', 'episode_topics', 'topic_tags', 'links', 'documents', 'sources', 'raw_data'] LOOP
    EXECUTE format('CREATE TRIGGER %I BEFORE INSERT OR UPDATE OR DELETE ON %I FOR EACH STATEMENT EXECUTE FUNCTION brain.note_actor()', t || '_00_actor', t);
  END LOOP;
END
$$;

-- The deny-list and the audit on the remaining knowledge tables.
DO $$
DECLARE t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['episode_topics', 'topic_tags', 'links', 'documents', 'sources', 'raw_data'] LOOP
    IF t <> 'episode_topics' THEN
      EXECUTE format('CREATE TRIGGER %I BEFORE INSERT OR UPDATE ON %I FOR EACH ROW EXECUTE FUNCTION brain_private.deny_guard()', t || '_20_deny', t);
    END IF;
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE ON %I FOR EACH ROW EXECUTE FUNCTION brain.audit_row()', t || '_90_audit', t);
  END LOOP;
END
$$;
