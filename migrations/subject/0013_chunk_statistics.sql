-- requires: vector
-- What ANALYZE of chunks reads and computes that no plan uses. The planner estimates chunks only by
-- the cards' ids, the model, dims and chunk_index (joins and filters); nothing compares a chunk's
-- text, heading, content hash, vector or creation time in a WHERE. And for each HNSW index,
-- ANALYZE evaluated the indexed expression (the vector cast to its dimensions) on every sampled
-- row, which reads each vector from TOAST: 30,000 vectors of 3 kB for statistics of a type that
-- has none to give. The embedded brain's maintenance analyses chunks whenever embedding has grown
-- them by a tenth, on the process's only thread, so every request waited: at 42,697 chunks,
-- ANALYZE took 737 ms cold and 370 warm (a ping at a start after embedding waited 850-940 ms);
-- without these, 378 and 140-150 (docs/performance.md). STATISTICS 0: ANALYZE skips the column,
-- and an index column at 0 is not evaluated at all.
ALTER TABLE chunks
  ALTER COLUMN text SET STATISTICS 0,
  ALTER COLUMN heading SET STATISTICS 0,
  ALTER COLUMN content_hash SET STATISTICS 0,
  ALTER COLUMN embedding SET STATISTICS 0,
  ALTER COLUMN created_at SET STATISTICS 0;
ALTER INDEX chunks_hnsw_768 ALTER COLUMN 1 SET STATISTICS 0;
ALTER INDEX chunks_hnsw_512 ALTER COLUMN 1 SET STATISTICS 0;
