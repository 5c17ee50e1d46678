// The embedded brain reads its vector index into PGlite's page cache before the first searches
// need it. An HNSW search walks a few thousand index pages scattered over the whole index (2,000
// to 2,500 buffers a query at 7,500 pages), so each of a server's first hundred-odd searches finds
// many of them missing: read through the WebAssembly file layer into cache pages touched for the
// first time (first touches are costly on a virtual machine: docs/performance.md). On the scale
// bench's 7,500-page brain, a fresh server's 200 held-out hybrid searches over MCP had a cold p95
// of 47-51 ms without this and 40-42 with it (alternating runs); warm searches did not change.
//
// Done by the superuser with pageinspect's get_raw_page (created in brain_private by the
// embedded bootstrap), which reads one page through Postgres's buffer manager: pages land in the
// cache as a search would leave them. In slices of SLICE_PAGES, each taking the connection on its
// own with a turn of the event loop between two, so a request that comes meanwhile waits for one
// slice (a few ms) at most. As background work: it never wakes a sleeping brain, and stops where
// it is when the brain falls asleep or closes.
//
// Only as much as a share of the cache (CACHE_SHARE): an index larger than that is read in part
// (its first pages), since reading more would only push out what was read before. It costs the
// memory those pages take, which the searches would take anyway as they read them (a server's RSS
// after 400 hybrid searches on that brain: 465 MiB, against 390 right after the prewarm).
import type { EmbeddedDatabase } from './embedded.js';
import { ident } from './sql.js';

/** Pages per statement: at 7,500 pages (22,462 index pages in 323-583 ms) a slice took 2-3 ms. */
export const SLICE_PAGES = 128;

/** The share of PGlite's page cache (shared_buffers) the prewarm may fill. */
export const CACHE_SHARE = 0.75;

export interface PrewarmedIndex {
  /** schema.index */
  index: string;
  /** Pages the index has. */
  pages: number;
  /** Pages read into the cache (fewer where the budget ran out). */
  read: number;
}

export interface PrewarmReport {
  indexes: PrewarmedIndex[];
  /** The budget in pages (CACHE_SHARE of shared_buffers unless given). */
  budget: number;
  /** The brain fell asleep or closed before the end. */
  stopped: boolean;
  /** pageinspect is not installed (a brain bootstrapped before it, or without its files): nothing was read. */
  unavailable?: true;
}

export interface PrewarmOptions {
  /** Schemas (subjects) whose indexes to read, in this order. */
  schemas: readonly string[];
  /** The embedder's dimensions: only that index of each subject (chunks_hnsw_<dims>) is searched. */
  dims: number;
  slicePages?: number;
  /** The budget in pages; by default CACHE_SHARE of shared_buffers. */
  budgetPages?: number;
}

/** Reads each subject's vector index for `dims` into the page cache, within the budget (see above). */
export async function prewarmVectorIndexes(embedded: EmbeddedDatabase, opts: PrewarmOptions): Promise<PrewarmReport> {
  const slice = opts.slicePages ?? SLICE_PAGES;
  if (!Number.isInteger(slice) || slice < 1) throw new RangeError(`slicePages must be a positive integer, got ${slice}`);
  const found = await embedded.runIfAwake(async (pg) => {
    const ext = await pg.query<{ schema: string }>(`SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pageinspect'`);
    const cache = await pg.query<{ pages: number }>(`SELECT setting::int AS pages FROM pg_settings WHERE name = 'shared_buffers'`);
    const names = opts.schemas.map((s) => `${s}.chunks_hnsw_${opts.dims}`);
    // to_regclass: a subject without pgvector has no such index. Sizes in pages as Postgres sees them.
    const indexes = await pg.query<{ name: string; pages: number }>(
      `SELECT i.name, (pg_relation_size(to_regclass(i.name)) / current_setting('block_size')::int)::int AS pages
         FROM unnest($1::text[]) WITH ORDINALITY AS i(name, ord) WHERE to_regclass(i.name) IS NOT NULL ORDER BY i.ord`,
      [names],
    );
    return { schema: ext.rows[0]?.schema, cachePages: cache.rows[0]!.pages, indexes: indexes.rows };
  });
  if (!found) return { indexes: [], budget: 0, stopped: true };
  const budget = opts.budgetPages ?? Math.floor(found.cachePages * CACHE_SHARE);
  if (!found.schema) return { indexes: [], budget, stopped: false, unavailable: true };
  const getRawPage = `${ident(found.schema)}.get_raw_page`;
  const report: PrewarmReport = { indexes: [], budget, stopped: false };
  let left = budget;
  for (const { name, pages } of found.indexes) {
    const entry = { index: name, pages, read: 0 };
    report.indexes.push(entry);
    const want = Math.min(pages, left);
    for (let from = 0; from < want; from += slice) {
      const to = Math.min(want, from + slice) - 1;
      const done = await embedded.runIfAwake((pg) => pg.query(`SELECT count(length(${getRawPage}($1, b))) FROM generate_series($2::int, $3::int) b`, [name, from, to]));
      if (done === undefined) return { ...report, stopped: true };
      entry.read += to - from + 1;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    left -= entry.read;
  }
  return report;
}
