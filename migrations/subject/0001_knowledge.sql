-- The knowledge tables of one subject. Applied to every subject's schema by the migration
-- runner with search_path set to that schema, so names here are unqualified on purpose;
-- anything outside the subject (brain.*, brain_ext.*) is qualified.

-- Topic cards: what something is. The body is the compiled truth, rewritten as
-- understanding improves; `timeline` keeps imported below-the-line markdown verbatim.
CREATE TABLE topics (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  slug        text NOT NULL UNIQUE
              CHECK (slug ~ '^[^/\s][^\s]*$' AND slug !~ '//' AND slug !~ '/$' AND length(slug) <= 200),
  kind        text NOT NULL,
  kind_class  text NOT NULL DEFAULT 'topic' CHECK (kind_class = 'topic'),
  title       text NOT NULL CHECK (length(btrim(title)) > 0),
  summary     text NOT NULL DEFAULT '',
  body        text NOT NULL DEFAULT '',
  timeline    text NOT NULL DEFAULT '',
  -- json, not jsonb: json keeps the key order the author wrote.
  frontmatter json NOT NULL DEFAULT '{}',
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (kind, kind_class) REFERENCES brain.kinds (name, class)
);
CREATE INDEX topics_kind_idx ON topics (kind);
CREATE INDEX topics_updated_idx ON topics (updated_at);
CREATE TRIGGER topics_touch BEFORE UPDATE ON topics
  FOR EACH ROW EXECUTE FUNCTION brain.touch_updated_at();

-- Episodes: what happened, and when. Append-only evidence for the topics they concern.
CREATE TABLE episodes (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind         text NOT NULL,
  kind_class   text NOT NULL DEFAULT 'episode' CHECK (kind_class = 'episode'),
  occurred_at  timestamptz NOT NULL,
  -- true when only the date is known (a GBrain timeline line), so it renders as YYYY-MM-DD.
  date_only    boolean NOT NULL DEFAULT false,
  title        text NOT NULL CHECK (length(btrim(title)) > 0),
  summary      text NOT NULL DEFAULT '',
  detail       text NOT NULL DEFAULT '',
  source_label text NOT NULL DEFAULT '',
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (kind, kind_class) REFERENCES brain.kinds (name, class)
);
CREATE INDEX episodes_occurred_idx ON episodes (occurred_at DESC);
CREATE INDEX episodes_kind_idx ON episodes (kind);
CREATE TRIGGER episodes_touch BEFORE UPDATE ON episodes
  FOR EACH ROW EXECUTE FUNCTION brain.touch_updated_at();

-- Which topics an episode concerns. A topic's timeline is its episodes, newest first.
CREATE TABLE episode_topics (
  episode_id bigint NOT NULL REFERENCES episodes (id) ON DELETE CASCADE,
  topic_id   bigint NOT NULL REFERENCES topics (id) ON DELETE CASCADE,
  PRIMARY KEY (episode_id, topic_id)
);
CREATE INDEX episode_topics_topic_idx ON episode_topics (topic_id);

CREATE TABLE topic_tags (
  topic_id bigint NOT NULL REFERENCES topics (id) ON DELETE CASCADE,
  tag      text NOT NULL CHECK (length(btrim(tag)) > 0 AND length(tag) <= 100),
  PRIMARY KEY (topic_id, tag)
);
CREATE INDEX topic_tags_tag_idx ON topic_tags (tag);

-- Links from a topic to a target named by subject and slug. The target may live in
-- another schema (a project card pointing at a personal card), so it is a name, not a
-- foreign key; dead links are lint's job. Backlinks are a query over this table.
CREATE TABLE links (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  from_topic_id bigint NOT NULL REFERENCES topics (id) ON DELETE CASCADE,
  to_subject   text NOT NULL,
  to_slug      text NOT NULL,
  relation     text NOT NULL DEFAULT 'mentions'
               CHECK (relation IN ('mentions', 'relates-to', 'supersedes', 'upcast-of', 'derived-from')),
  context      text NOT NULL DEFAULT '',
  created_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (from_topic_id, to_subject, to_slug, relation)
);
CREATE INDEX links_target_idx ON links (to_subject, to_slug);

-- The documents store: ingested source texts, kept verbatim (the raw layer).
CREATE TABLE documents (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  uri         text,
  title       text NOT NULL DEFAULT '',
  media_type  text NOT NULL DEFAULT 'text/markdown',
  content     text NOT NULL,
  sha256      text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  fetched_at  timestamptz NOT NULL DEFAULT now(),
  created_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (sha256)
);

-- Provenance: where a card or an episode came from.
CREATE TABLE sources (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  topic_id    bigint REFERENCES topics (id) ON DELETE CASCADE,
  episode_id  bigint REFERENCES episodes (id) ON DELETE CASCADE,
  document_id bigint REFERENCES documents (id) ON DELETE SET NULL,
  uri         text,
  locator     text NOT NULL DEFAULT '',
  quote       text NOT NULL DEFAULT '',
  created_at  timestamptz NOT NULL DEFAULT now(),
  CHECK (topic_id IS NOT NULL OR episode_id IS NOT NULL),
  CHECK (document_id IS NOT NULL OR uri IS NOT NULL)
);
CREATE INDEX sources_topic_idx ON sources (topic_id);
CREATE INDEX sources_episode_idx ON sources (episode_id);

-- Raw enrichment data per card and source (GBrain's .raw/ sidecars).
CREATE TABLE raw_data (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  topic_id   bigint NOT NULL REFERENCES topics (id) ON DELETE CASCADE,
  source     text NOT NULL CHECK (length(btrim(source)) > 0),
  data       json NOT NULL,
  fetched_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (topic_id, source)
);
