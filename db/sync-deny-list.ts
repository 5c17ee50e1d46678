// Makes brain_private.deny_rules and deny_allow equal to deny-list.yaml. Each PII pattern
// is compiled by Postgres first, so a bad one is reported by name, with nothing changed.
// A subject's tokens and the allowed strings are compiled by Postgres itself
// (brain_private.deny_token_pattern, deny_allow_pattern: migrations/global/0009), through
// the same folding every scanned value goes through, so a token and the text are read alike.
import type { DenyList } from '../config/deny-list.js';
import { ConfigError } from '../config/subjects.js';
import { inTransaction, sqlState, type SqlSession } from './sql.js';

export async function syncDenyList(session: SqlSession, denyList: DenyList, file = 'deny-list.yaml'): Promise<boolean> {
  const wanted: { id: number; category: string; label: string; pattern: string; check_fn: string | null }[] = [];
  for (const rule of denyList.rules) {
    let pattern = rule.pattern;
    if (rule.tokens) {
      const [compiled] = await session.query<{ pattern: string }>('SELECT brain_private.deny_token_pattern($1::text[]) AS pattern', [rule.tokens]);
      pattern = compiled!.pattern;
    }
    try {
      await session.query("SELECT '' ~* $1", [pattern]);
    } catch (cause) {
      if (sqlState(cause) !== '2201B') throw cause;
      const name = rule.category.startsWith('subject-token:') ? `the tokens of subject "${rule.category.slice(14)}"` : `pii.${rule.category.slice(4)}`;
      throw new ConfigError(`${file}: ${name}: not a valid PostgreSQL regular expression (${(cause as Error).message})`, { cause });
    }
    wanted.push({ id: rule.id, category: rule.category, label: rule.label, pattern, check_fn: rule.check });
  }
  const [allowWanted] = await session.query<{ pattern: string }>('SELECT brain_private.deny_allow_pattern($1::text[]) AS pattern', [denyList.allow]);
  const allowPattern = allowWanted!.pattern;
  const current = await session.query<{ id: number; category: string; label: string; pattern: string; check_fn: string | null }>(
    'SELECT id, category, label, pattern, check_fn FROM brain_private.deny_rules ORDER BY id',
  );
  const [allow] = await session.query<{ pattern: string }>('SELECT pattern FROM brain_private.deny_allow WHERE id = 1');
  const same =
    current.length === wanted.length &&
    current.every((c, i) => {
      const r = wanted[i]!;
      return c.id === r.id && c.category === r.category && c.label === r.label && c.pattern === r.pattern && c.check_fn === r.check_fn;
    }) &&
    (allow?.pattern ?? '') === allowPattern;
  if (same) return false;
  await inTransaction(session, async () => {
    await session.exec('DELETE FROM brain_private.deny_rules; DELETE FROM brain_private.deny_allow');
    for (const r of wanted) {
      await session.query('INSERT INTO brain_private.deny_rules (id, category, label, pattern, check_fn) VALUES ($1, $2, $3, $4, $5)', [
        r.id,
        r.category,
        r.label,
        r.pattern,
        r.check_fn,
      ]);
    }
    if (allowPattern) await session.query('INSERT INTO brain_private.deny_allow (id, pattern) VALUES (1, $1)', [allowPattern]);
  });
  return true;
}
