-- The web view's overview re-reads a subject's figures after every write into it
-- (services/view/pages/overview.ts). These indexes let it count from indexes alone, never from
-- the cards themselves (over 100 MB at 100k cards, most of it the search tsvector):
--   * live cards per kind = cards per kind (topics_kind_idx) less the archived ones per kind,
--     which this partial index holds, and which are few (services/knowledge/stats.ts);
--   * card writes per week up to an outbox mark: the chart's index carries the outbox id, so
--     `id <= mark` is checked in the index.
CREATE INDEX topics_archived_kind_idx ON topics (kind) WHERE archived_at IS NOT NULL;

DROP INDEX outbox_card_writes_at_idx;
CREATE INDEX outbox_card_writes_at_idx ON outbox (at) INCLUDE (id) WHERE table_name IN ('topics', 'episodes');
