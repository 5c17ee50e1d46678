// Readiness of one subject's server: the database answers as this subject's role,
// migrations are current, kinds and deny-list are loaded, and the embedder's state.
import { sql } from 'kysely';
import { MIGRATIONS_DIR } from '../../db/bootstrap.js';
import { withoutReconnectWait } from '../../db/connection-loss.js';
import { loadMigrations } from '../../db/migrate.js';
import type { BrainContext } from '../knowledge/index.js';

export interface EmbedderReport {
  state: string;
  pending?: number;
  model?: string;
  detail?: string;
}

export interface Readiness {
  ready: boolean;
  role?: string;
  migrations?: { missing: string[] };
  kinds?: number;
  denyListRules?: number;
  embedder?: EmbedderReport;
  problems: string[];
}

const expected = {
  global: loadMigrations(MIGRATIONS_DIR, 'global'),
  subject: loadMigrations(MIGRATIONS_DIR, 'subject'),
};

/**
 * Answers at once: while the database is away (a restart) the check fails instead of
 * waiting for it to come back, so /readyz says 503 and, once it is back, 200 again.
 */
export function checkReadiness(ctx: BrainContext, embedder?: () => EmbedderReport): Promise<Readiness> {
  return withoutReconnectWait(() => check(ctx, embedder));
}

async function check(ctx: BrainContext, embedder?: () => EmbedderReport): Promise<Readiness> {
  const problems: string[] = [];
  const [who] = (await sql<{ role: string; features: string[] }>`SELECT current_user AS role, ARRAY(SELECT extname::text FROM pg_extension) AS features`.execute(ctx.db)).rows;
  if (who?.role !== ctx.subject.role) problems.push(`connected as ${who?.role}, expected ${ctx.subject.role}`);
  const features = new Set(who?.features ?? []);
  const status = (await sql<{ scope: string; versions: number[]; deny_rules: number }>`SELECT * FROM brain.schema_status()`.execute(ctx.db)).rows;
  const applied = (scope: string) => new Set(status.find((r) => r.scope === scope)?.versions ?? []);
  const missing = [
    ...expected.global.filter((m) => !applied('global').has(m.version) && m.requires.every((f) => features.has(f))).map((m) => m.file),
    ...expected.subject.filter((m) => !applied(ctx.subject.name).has(m.version) && m.requires.every((f) => features.has(f))).map((m) => m.file),
  ];
  if (missing.length) problems.push(`migrations not applied: ${missing.join(', ')} (run brain init)`);
  const [k] = (await sql<{ n: number }>`SELECT count(*)::int AS n FROM brain.kinds`.execute(ctx.db)).rows;
  if (!k?.n) problems.push('no kinds loaded (run brain init)');
  const denyListRules = status[0]?.deny_rules ?? 0;
  if (!denyListRules) problems.push('deny-list has no rules (run brain init)');
  const emb = embedder?.();
  return {
    ready: problems.length === 0,
    role: who?.role,
    migrations: { missing },
    kinds: k?.n ?? 0,
    denyListRules,
    ...(emb ? { embedder: emb } : {}),
    problems,
  };
}
