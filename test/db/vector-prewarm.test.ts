// The embedded brain reads its vector index into PGlite's page cache ahead of the first searches
// (db/vector-prewarm.ts), with pageinspect's get_raw_page, which its bootstrap creates in
// brain_private. Looked at directly: after the prewarm, the vector statement's plan reads no
// index page from disk; without it, the same statement on a freshly opened brain does. A data
// directory, so that a reopen starts with an empty cache.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Subject } from '../../config/subjects.js';
import { bootstrap } from '../../db/bootstrap.js';
import { EmbeddedDatabase } from '../../db/embedded.js';
import { pgliteSession } from '../../db/sql.js';
import { openEmbeddedSubjectDb, type SubjectDb } from '../../db/subject-db.js';
import { prewarmVectorIndexes } from '../../db/vector-prewarm.js';
import type { Embedder } from '../../services/embeddings/embedder.js';
import { createContext } from '../../services/knowledge/context.js';
import { createTopic } from '../../services/knowledge/index.js';
import { embedStale } from '../../services/search/index.js';
import { describeOnBothDatabases } from '../support/both-databases.js';
import { DENY_LIST, KINDS, testSubjects } from '../support/brains.js';

const DIMS = 768;
const MODEL = 'prewarm-768';

/** A distinct unit-length vector per text. */
function vectorOf(text: string): number[] {
  let h = 7;
  for (const c of text) h = (h * 31 + c.charCodeAt(0)) % 10_007;
  const v = Array.from({ length: DIMS }, (_, i) => Math.sin(h * (i + 1)));
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

const embedder: Embedder = {
  model: MODEL,
  dimensions: DIMS,
  embedDocuments: async (texts) => texts.map(vectorOf),
  embedQuery: async (text) => vectorOf(text),
  health: async () => ({ ok: true }),
};

/** The superuser's counts of the index's pages read from disk and found in the cache (statistics flushed first). */
async function indexBlocks(embedded: EmbeddedDatabase, schema: string): Promise<{ read: number; hit: number }> {
  const rows = await embedded.runIfAwake(async (pg) => {
    await pg.query('SELECT pg_stat_force_next_flush()');
    await pg.query('SELECT pg_stat_clear_snapshot()');
    return (await pg.query<{ read: number; hit: number }>(`SELECT idx_blks_read::int AS read, idx_blks_hit::int AS hit FROM pg_statio_all_indexes WHERE indexrelid = '${schema}.chunks_hnsw_${DIMS}'::regclass`)).rows;
  });
  expect(rows).toHaveLength(1);
  return rows![0]!;
}

/**
 * The index pages a vector statement read from disk and found in the cache, from the index's
 * statistics before and after it (a plan's buffer counts would add the table's pages). The plan
 * is checked to walk the HNSW index.
 */
async function vectorScanBlocks(embedded: EmbeddedDatabase, schema: string): Promise<{ read: number; hit: number }> {
  const probe = `'[${vectorOf('probe').join(',')}]'::brain_ext.vector(${DIMS})`;
  const before = await indexBlocks(embedded, schema);
  const plan = await embedded.runIfAwake(async (pg) => {
    await pg.exec('BEGIN; SET LOCAL enable_seqscan = off');
    try {
      const r = await pg.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN (ANALYZE, FORMAT TEXT)
         SELECT id FROM ${schema}.chunks WHERE dims = ${DIMS} AND model = '${MODEL}'
          ORDER BY embedding::brain_ext.vector(${DIMS}) OPERATOR(brain_ext.<=>) ${probe} LIMIT 10`,
      );
      return r.rows.map((x) => x['QUERY PLAN']).join('\n');
    } finally {
      await pg.exec('ROLLBACK');
    }
  });
  expect(plan).toContain(`Index Scan using chunks_hnsw_${DIMS}`);
  const after = await indexBlocks(embedded, schema);
  return { read: after.read - before.read, hit: after.hit - before.hit };
}

describe('reading the vector index ahead (embedded brain, data directory)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'brain-prewarm-'));
  const config = testSubjects(['personal', 'homelab']);
  const subject = (name: string): Subject => config.subjects.find((s) => s.name === name)!;
  let embedded: EmbeddedDatabase;
  const handles: SubjectDb[] = [];
  /** Each subject's index size in pages, once built. */
  const pages = new Map<string, number>();

  const reopen = async () => {
    for (const h of handles.splice(0)) await h.close();
    await embedded.close();
    embedded = await EmbeddedDatabase.open(dir);
  };
  const contextOf = async (name: string) => {
    const handle = openEmbeddedSubjectDb(embedded, subject(name));
    handles.push(handle);
    return createContext(subject(name), handle.db);
  };

  beforeAll(async () => {
    embedded = await EmbeddedDatabase.open(dir);
    await embedded.lock.run(() => bootstrap(pgliteSession(embedded.pg), { subjects: config, kinds: KINDS, denyList: DENY_LIST, secrets: null }));
    for (const [name, cards] of [['homelab', 40], ['personal', 12]] as const) {
      const ctx = await contextOf(name);
      for (let i = 0; i < cards; i++) await createTopic(ctx, { slug: `warm/${name}-${i}`, kind: 'environment', title: `${name} card ${i}`, body: `Notes ${i} about the ${name} vector index.` });
      expect(await embedStale(ctx, embedder)).toMatchObject({ embedded: cards, pending: 0 });
    }
    for (const name of ['homelab', 'personal']) {
      const rows = await embedded.runIfAwake((pg) => pg.query<{ n: number }>(`SELECT (pg_relation_size('${name}.chunks_hnsw_${DIMS}') / 8192)::int AS n`));
      pages.set(name, rows!.rows[0]!.n);
    }
  }, 120_000);

  afterAll(async () => {
    for (const h of handles) await h.close();
    await embedded?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('on a freshly opened brain, the vector statement reads index pages from disk', async () => {
    await reopen();
    expect((await vectorScanBlocks(embedded, 'homelab')).read).toBeGreaterThan(0);
  });

  it('after the prewarm it reads none: every index page it needs is in the cache', async () => {
    await reopen();
    const report = await prewarmVectorIndexes(embedded, { schemas: ['homelab'], dims: DIMS });
    expect(pages.get('homelab')).toBeGreaterThan(10);
    expect(report).toMatchObject({ stopped: false, indexes: [{ index: `homelab.chunks_hnsw_${DIMS}`, pages: pages.get('homelab'), read: pages.get('homelab') }] });
    expect(report.budget).toBeGreaterThan(pages.get('homelab')!);
    const blocks = await vectorScanBlocks(embedded, 'homelab');
    expect(blocks.hit).toBeGreaterThan(0);
    expect(blocks.read).toBe(0);
  });

  it('reads the subjects in order within its budget, and only the index of the embedder’s dimensions', async () => {
    await reopen();
    const budget = pages.get('homelab')! + 3;
    const report = await prewarmVectorIndexes(embedded, { schemas: ['homelab', 'personal'], dims: DIMS, budgetPages: budget, slicePages: 4 });
    expect(report.indexes).toEqual([
      { index: `homelab.chunks_hnsw_${DIMS}`, pages: pages.get('homelab'), read: pages.get('homelab') },
      { index: `personal.chunks_hnsw_${DIMS}`, pages: pages.get('personal'), read: 3 },
    ]);
    // No chunk at 512 dimensions: that index is not the embedder's, and is left alone.
    const other = await prewarmVectorIndexes(embedded, { schemas: ['homelab'], dims: 512, budgetPages: 1000 });
    expect(other.indexes.map((i) => i.index)).toEqual(['homelab.chunks_hnsw_512']);
    await expect(prewarmVectorIndexes(embedded, { schemas: ['homelab'], dims: DIMS, slicePages: 0 })).rejects.toThrow('slicePages must be a positive integer');
  });

  it('goes in slices: a statement asked for meanwhile runs before the prewarm ends', async () => {
    await reopen();
    const ctx = await contextOf('homelab');
    const pg = embedded.pg;
    const query = pg.query.bind(pg);
    let slices = 0;
    let slicesWhenOtherRan: number | undefined;
    let other: Promise<void> | undefined;
    pg.query = (async (...args: Parameters<typeof pg.query>) => {
      if (String(args[0]).includes('get_raw_page') && ++slices === 2) {
        other = sql`SELECT 1`.execute(ctx.db).then(() => void (slicesWhenOtherRan = slices));
      }
      return query(...args);
    }) as typeof pg.query;
    try {
      const report = await prewarmVectorIndexes(embedded, { schemas: ['homelab'], dims: DIMS, slicePages: 2 });
      await other;
      expect(report.indexes[0]!.read).toBe(pages.get('homelab'));
      expect(slices).toBe(Math.ceil(pages.get('homelab')! / 2));
      expect(slicesWhenOtherRan).toBeLessThan(slices);
    } finally {
      pg.query = query;
    }
  });

  it('reads nothing from a brain that has closed', async () => {
    await reopen();
    const closed = embedded;
    await closed.close();
    expect(await prewarmVectorIndexes(closed, { schemas: ['homelab'], dims: DIMS })).toEqual({ indexes: [], budget: 0, stopped: true });
    embedded = await EmbeddedDatabase.open(dir);
  });
});

describeOnBothDatabases('pageinspect, for the prewarm', (brain, target) => {
  it('is in brain_private on the embedded brain, and absent from a Postgres server', async () => {
    const rows = await brain().admin.query<{ schema: string }>(`SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pageinspect'`);
    expect(rows.map((r) => r.schema)).toEqual(target === 'pglite' ? ['brain_private'] : []);
  });

  it('is out of an app role’s reach', async (t) => {
    if (target !== 'pglite') t.skip();
    const role = brain().config.subjects.find((s) => s.name === 'homelab')!.role;
    const read = () => brain().asRole(role, (s) => s.query(`SELECT brain_private.get_raw_page('homelab.chunks', 0)`));
    await expect(read()).rejects.toThrow(/permission denied for schema brain_private/);
    // Behind the schema, the function itself (pageinspect grants it to no one): with USAGE granted by hand it still refuses.
    await brain().admin.exec(`GRANT USAGE ON SCHEMA brain_private TO "${role}"`);
    try {
      await expect(read()).rejects.toThrow(/permission denied for function get_raw_page/);
    } finally {
      await brain().admin.exec(`REVOKE USAGE ON SCHEMA brain_private FROM "${role}"`);
    }
  });
});
