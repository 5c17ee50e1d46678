-- Topic rows kept narrow: once Postgres toasts a row (over 2 kB, or holding an out-of-line value,
-- as most topics do: their search vector), it now moves the body, the timeline, the frontmatter
-- and the search vector out of line until the row is under 256 bytes, instead of stopping at
-- 2 kB with the body and the timeline compressed in the row. Slug, kind, title and summary stay
-- in the row: the largest values go first, and a row is under the target once those are out.
--
-- Why: keyword search's first stage visits the row of every card a selecting word holds (its
-- visibility, archived_at and the search vector's stored size; services/search/keyword.ts). At
-- 7,500 pages a common word selects 1,500 topics, which sat on 915 of the table's pages (5-6
-- rows to a page); narrow rows put the whole table on 202 pages, and that stage went from
-- 4.0-4.7 to 2.2 ms warm in PGlite for such a word (docs/performance.md, "Narrow topic rows").
-- The display and the relevance evidence read the body or vector of a few cards each search,
-- from TOAST as the search vector already was.
--
-- Rows written before this are narrowed here. Postgres calls its toaster only for a row over
-- 2 kB as built, or holding an out-of-line value; a row whose body and timeline were compressed
-- in place is neither, so a plain rewrite (CLUSTER, VACUUM FULL) copies it as it is. Setting
-- the body to itself made anew (`|| ''`) builds each row uncompressed, and the toaster narrows
-- it. The table's triggers are off for it: no value changes (not updated_at, not the search
-- vector), so nothing is stamped, versioned or recomputed. The search vector's GIN index is
-- dropped first and built once, after the rows are packed (0014_topics_packed.sql): kept, it
-- took each row's lexemes in again, 11.9 of the update's 12 s at 7,500 topics in PGlite (1.6 s
-- without it). The packing is a migration of its own because in this transaction the rows' old
-- versions are still its own deletions, which a rewrite must keep.
ALTER TABLE topics SET (toast_tuple_target = 256);
DROP INDEX topics_search_idx;
ALTER TABLE topics DISABLE TRIGGER USER;
UPDATE topics SET body = body || '';
ALTER TABLE topics ENABLE TRIGGER USER;
