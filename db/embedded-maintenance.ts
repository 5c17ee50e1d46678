// The embedded brain's autovacuum. PGlite runs no background workers, so nothing would ever
// ANALYZE or VACUUM its tables: the planner would guess every row count, keyword search
// would have no word frequencies to plan with (services/search/selectivity.ts), and the
// full-text indexes' pending lists and dead rows would only grow. This does what
// autovacuum does on a server, with the same default thresholds, as the superuser PGlite
// runs as, between transactions (it holds the connection's lock).
//
// PGlite forgets its activity counters when it closes (pg_stat_user_tables starts from zero
// on every open), so the counters only say what changed since this process opened the
// brain. What they cannot say, the tables' sizes do: pg_class.relpages is the size the last
// ANALYZE or VACUUM saw, and a table that grew or shrank since (another process wrote into it,
// `brain import` most of all) is analysed by the first pass, vacuumed too when it grew by
// what would call for a VACUUM. A table as big as its statistics say is left alone: analysing
// every table at every start took seconds at 100k cards, holding the connection from the
// first searches. Each table's step takes the connection on its own: a request waits for one
// ANALYZE at most, never for the whole pass.
import type { PGlite } from '@electric-sql/pglite';
import type { EmbeddedDatabase } from './embedded.js';
import { ident } from './sql.js';

/** Postgres's autovacuum defaults: act on a table once this many rows (base + share of its size) changed. */
export const ANALYZE_THRESHOLD = { base: 50, share: 0.1 };
export const VACUUM_THRESHOLD = { base: 50, share: 0.2 };
/** Inserts alone also call for a VACUUM (autovacuum_vacuum_insert_threshold / _scale_factor): it merges full-text pending lists. */
export const VACUUM_INSERT_THRESHOLD = { base: 1000, share: 0.2 };

export interface TableActivity {
  schema: string;
  table: string;
  /** pg_class.reltuples: -1 when never analysed or vacuumed. */
  reltuples: number;
  liveRows: number;
  deadRows: number;
  modifiedSinceAnalyze: number;
  insertedSinceVacuum: number;
  /** Whether pg_statistic has anything for the table. */
  hasStatistics: boolean;
  /** pg_class.relpages: the table's size in pages when it was last analysed or vacuumed. */
  pagesAtStatistics: number;
  /** Its size in pages now. */
  pages: number;
}

export interface MaintenanceStep {
  table: string;
  action: 'analyze' | 'vacuum analyze';
  ms: number;
}

const over = (t: { base: number; share: number }, rows: number, n: number) => n > t.base + t.share * Math.max(rows, 0);

/** A table's size may move this much (a share of it, plus pages) before its statistics count as stale. */
export const SIZE_DRIFT = { analyze: { base: 8, share: 0.1 }, vacuum: { base: 8, share: VACUUM_INSERT_THRESHOLD.share } };

/**
 * What a table needs, by autovacuum's rules (a table with rows but no statistics is analysed
 * at once); on the first pass after opening, also by how far its size moved from the size its
 * statistics were taken at.
 */
export function maintenanceFor(t: TableActivity, firstPass = false): MaintenanceStep['action'] | undefined {
  const grown = t.pages - t.pagesAtStatistics;
  if (over(VACUUM_THRESHOLD, t.reltuples, t.deadRows) || over(VACUUM_INSERT_THRESHOLD, t.reltuples, t.insertedSinceVacuum)) return 'vacuum analyze';
  if (firstPass && over(SIZE_DRIFT.vacuum, t.pagesAtStatistics, grown)) return 'vacuum analyze';
  if (firstPass && (over(SIZE_DRIFT.analyze, t.pagesAtStatistics, Math.abs(grown)) || (!t.hasStatistics && t.pages > 0))) return 'analyze';
  if (over(ANALYZE_THRESHOLD, t.reltuples, t.modifiedSinceAnalyze) || (!t.hasStatistics && t.liveRows > 0)) return 'analyze';
  return undefined;
}

async function activity(pg: PGlite): Promise<TableActivity[]> {
  // Activity counters reach the statistics views when the backend reports them, which a
  // single-user PGlite does only when asked.
  await pg.query('SELECT pg_stat_force_next_flush()');
  const res = await pg.query<{ schema: string; tbl: string; reltuples: number; live: number; dead: number; mods: number; ins: number; stats: boolean; relpages: number; pages: number }>(
    `SELECT s.schemaname AS schema, s.relname AS tbl, c.reltuples::float8 AS reltuples,
            c.relpages::float8 AS relpages, (pg_relation_size(c.oid) / current_setting('block_size')::int)::float8 AS pages,
            s.n_live_tup::float8 AS live, s.n_dead_tup::float8 AS dead,
            s.n_mod_since_analyze::float8 AS mods, s.n_ins_since_vacuum::float8 AS ins,
            EXISTS (SELECT 1 FROM pg_statistic p WHERE p.starelid = s.relid) AS stats
       FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
      WHERE s.schemaname IN (SELECT name FROM brain.subjects UNION ALL SELECT 'brain')
      ORDER BY 1, 2`,
  );
  return res.rows.map((r) => ({
    schema: r.schema,
    table: r.tbl,
    reltuples: Number(r.reltuples),
    liveRows: Number(r.live),
    deadRows: Number(r.dead),
    modifiedSinceAnalyze: Number(r.mods),
    insertedSinceVacuum: Number(r.ins),
    hasStatistics: r.stats,
    pagesAtStatistics: Number(r.relpages),
    pages: Number(r.pages),
  }));
}

/**
 * One pass: every table that needs it is analysed or vacuumed (`firstPass`: also those whose
 * size moved since their statistics), and the full-text indexes' pending lists are merged.
 * Returns what was done. A brain asleep (db/embedded.ts) is not woken for it: the pass does
 * nothing, or stops where it is.
 */
export async function maintainEmbedded(embedded: EmbeddedDatabase, opts: { firstPass?: boolean; stopped?: () => boolean } = {}): Promise<MaintenanceStep[]> {
  const tables = await embedded.runIfAwake(async (pg) => {
    // New rows of a GIN index wait in a pending list that every search scans; VACUUM merges it,
    // and so does this, at a cost proportional to the list (nothing when it is empty).
    await pg.query(
      `SELECT gin_clean_pending_list(i.indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
        WHERE a.amname = 'gin' AND c.relnamespace IN (SELECT oid FROM pg_namespace WHERE nspname IN (SELECT name FROM brain.subjects))`,
    );
    return activity(pg);
  });
  const steps: MaintenanceStep[] = [];
  for (const t of tables ?? []) {
    const action = maintenanceFor(t, opts.firstPass);
    if (!action) continue;
    if (opts.stopped?.()) break;
    const name = `${ident(t.schema)}.${ident(t.table)}`;
    // One table at a time, each taking the connection on its own (see the top of the file).
    const ms = await embedded.runIfAwake(async (pg) => {
      const started = performance.now();
      await pg.exec(`${action === 'analyze' ? 'ANALYZE' : 'VACUUM (ANALYZE)'} ${name}`);
      return Math.round(performance.now() - started);
    });
    if (ms === undefined) break; // fell asleep meanwhile
    steps.push({ table: `${t.schema}.${t.table}`, action, ms });
  }
  return steps;
}

export interface MaintenanceLoop {
  /** Runs a pass now (after the current one, if any) and resolves with what it did. The first pass also looks at the tables' sizes. */
  runNow(): Promise<MaintenanceStep[]>;
  stop(): Promise<void>;
}

/** A pass every `intervalMs` (unref'd: it never keeps the process alive); errors go to `onError`. */
export function startEmbeddedMaintenance(
  embedded: EmbeddedDatabase,
  opts: { intervalMs?: number; onSteps?: (steps: MaintenanceStep[]) => void; onError?: (error: unknown) => void } = {},
): MaintenanceLoop {
  let running: Promise<MaintenanceStep[]> = Promise.resolve([]);
  let stopped = false;
  // The first pass of each PGlite instance also goes by the tables' sizes: a brain woken from its
  // idle sleep has forgotten its activity counters too.
  let generation = 0;
  const one = async () => {
    if (stopped || !embedded.awake) return [];
    const firstPass = embedded.generation !== generation;
    const steps = await maintainEmbedded(embedded, { firstPass, stopped: () => stopped });
    if (firstPass && embedded.awake) generation = embedded.generation;
    return steps;
  };
  const pass = (): Promise<MaintenanceStep[]> => {
    running = running.then(one, one);
    running.then(
      (steps) => steps.length > 0 && opts.onSteps?.(steps),
      (error: unknown) => opts.onError?.(error),
    );
    return running;
  };
  const timer = setInterval(() => void pass().catch(() => undefined), opts.intervalMs ?? 60_000);
  timer.unref();
  return {
    runNow: pass,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running.catch(() => undefined);
    },
  };
}
