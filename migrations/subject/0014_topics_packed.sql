-- The topic rows 0013_topics_narrow_rows.sql narrowed, packed into a table of their own: until
-- then each narrow row sat where its old, wide version left room, on as many pages as before.
-- CLUSTER rewrites the table without the old versions (VACUUM FULL cannot run inside a
-- migration's transaction), in id order, the order the cards were written in, and rebuilds its
-- indexes; the table is not left marked as clustered. Then the search vector's GIN index, which
-- 0013 dropped, is built again as 0002_history_and_guards.sql made it. At 7,500 topics in
-- PGlite: 2.0 s for the rewrite, 2.2 s for the index, once.
CLUSTER topics USING topics_pkey;
ALTER TABLE topics SET WITHOUT CLUSTER;
CREATE INDEX topics_search_idx ON topics USING gin (search);
