// What the brain takes on disk: the data directory's bytes really used (allocated blocks, so
// sparse or preallocated files count as the file system counts them), split into base/ (tables
// and indexes), pg_wal/ (the write-ahead log) and the rest; and the ten biggest relations,
// asked of a copy of the data directory opened with PGlite itself (the library, not the
// brain: the brain's own files are never opened by the bench, whose opening would change
// them under the brain's damage check).
import { cpSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite-pgvector';

export interface DiskUse {
  /** Allocated bytes (st_blocks × 512). */
  total: number;
  base: number;
  wal: number;
  rest: number;
  /** Sum of file sizes (what `ls` says), for comparison. */
  apparent: number;
}

function walk(dir: string, visit: (path: string, used: number, size: number) => void): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) walk(path, visit);
    else if (e.isFile()) {
      const s = statSync(path);
      visit(path, s.blocks * 512, s.size);
    }
  }
}

export function diskUse(dataDir: string): DiskUse {
  const d: DiskUse = { total: 0, base: 0, wal: 0, rest: 0, apparent: 0 };
  walk(dataDir, (path, used, size) => {
    d.total += used;
    d.apparent += size;
    const rel = path.slice(dataDir.length + 1);
    if (rel.startsWith('base/')) d.base += used;
    else if (rel.startsWith('pg_wal/')) d.wal += used;
    else d.rest += used;
  });
  return d;
}

export interface RelationSize {
  name: string;
  bytes: number;
}

/** The ten biggest relations (table + its indexes + TOAST) and the database's size, from a copy. */
export async function biggestRelations(dataDir: string, limit = 10): Promise<{ relations: RelationSize[]; databaseBytes: number; ms: number }> {
  const started = performance.now();
  const copy = mkdtempSync(join(tmpdir(), 'brain-scale-relations-'));
  try {
    cpSync(dataDir, copy, { recursive: true });
    const pg = await PGlite.create(copy, { extensions: { vector, pg_trgm } });
    try {
      const rels = await pg.query<{ name: string; bytes: string }>(
        `SELECT n.nspname || '.' || c.relname AS name, pg_total_relation_size(c.oid)::text AS bytes
           FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
          WHERE c.relkind IN ('r', 'm') AND n.nspname NOT IN ('pg_catalog', 'information_schema')
          ORDER BY pg_total_relation_size(c.oid) DESC LIMIT $1`,
        [limit],
      );
      const db = await pg.query<{ bytes: string }>('SELECT pg_database_size(current_database())::text AS bytes');
      return { relations: rels.rows.map((r) => ({ name: r.name, bytes: Number(r.bytes) })), databaseBytes: Number(db.rows[0]?.bytes ?? 0), ms: performance.now() - started };
    } finally {
      await pg.close();
    }
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}
