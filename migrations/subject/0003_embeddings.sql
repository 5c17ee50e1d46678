-- requires: vector
-- Embeddings of this subject's cards, kept by the subject's own embed worker
-- (services/search/worker.ts). Derived data: no audit, no versions; a card's chunks go
-- with it by cascade. Project roles may only read personal's (db/grants/upcast.sql), so
-- a project writing into personal never has to (and cannot) touch these tables.

-- One row per chunk (services/embeddings/chunker.ts) per card per model. The vector has no
-- fixed dimension: a brain can hold two models while it catches up after a model change.
-- Vectors are only ever compared within one model (WHERE model = ... AND dims = ...).
CREATE TABLE chunks (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  topic_id     bigint REFERENCES topics (id) ON DELETE CASCADE,
  episode_id   bigint REFERENCES episodes (id) ON DELETE CASCADE,
  chunk_index  integer NOT NULL CHECK (chunk_index >= 0),
  heading      text,
  text         text NOT NULL,
  model        text NOT NULL,
  dims         integer NOT NULL CHECK (dims > 0),
  content_hash text NOT NULL,
  embedding    brain_ext.vector NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  CHECK ((topic_id IS NULL) <> (episode_id IS NULL)),
  CHECK (brain_ext.vector_dims(embedding) = dims)
);
CREATE UNIQUE INDEX chunks_topic_key ON chunks (topic_id, model, chunk_index) WHERE topic_id IS NOT NULL;
CREATE UNIQUE INDEX chunks_episode_key ON chunks (episode_id, model, chunk_index) WHERE episode_id IS NOT NULL;
-- One HNSW index per supported dimension, over a cast of the untyped column: an index needs
-- a fixed dimension, and the partial predicate keeps each index to vectors of its size.
-- Queries must repeat the cast and the predicate literally for the planner to use them.
CREATE INDEX chunks_hnsw_768 ON chunks USING hnsw ((embedding::brain_ext.vector(768)) brain_ext.vector_cosine_ops) WHERE dims = 768;
CREATE INDEX chunks_hnsw_512 ON chunks USING hnsw ((embedding::brain_ext.vector(512)) brain_ext.vector_cosine_ops) WHERE dims = 512;

-- Which version of each card is embedded with which model: the card's updated_at when it
-- was embedded. A card is pending for a model when it has no row here or the row's
-- source_updated_at differs from the card's updated_at (an anti-join on the key).
CREATE TABLE embedding_state (
  topic_id          bigint REFERENCES topics (id) ON DELETE CASCADE,
  episode_id        bigint REFERENCES episodes (id) ON DELETE CASCADE,
  model             text NOT NULL,
  dims              integer NOT NULL CHECK (dims > 0),
  source_updated_at timestamptz NOT NULL,
  content_hash      text NOT NULL,
  chunk_count       integer NOT NULL CHECK (chunk_count >= 0),
  embedded_at       timestamptz NOT NULL DEFAULT now(),
  CHECK ((topic_id IS NULL) <> (episode_id IS NULL))
);
CREATE UNIQUE INDEX embedding_state_topic_key ON embedding_state (topic_id, model) WHERE topic_id IS NOT NULL;
CREATE UNIQUE INDEX embedding_state_episode_key ON embedding_state (episode_id, model) WHERE episode_id IS NOT NULL;
