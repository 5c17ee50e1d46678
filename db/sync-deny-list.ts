// Makes brain_private.deny_rules and deny_allow equal to deny-list.yaml. Each pattern is
// compiled by Postgres first, so a bad one is reported by name, with nothing changed.
import type { DenyList } from '../config/deny-list.js';
import { ConfigError } from '../config/subjects.js';
import { inTransaction, sqlState, type SqlSession } from './sql.js';

export async function syncDenyList(session: SqlSession, denyList: DenyList, file = 'deny-list.yaml'): Promise<boolean> {
  for (const rule of denyList.rules) {
    try {
      await session.query("SELECT '' ~* $1", [rule.pattern]);
    } catch (cause) {
      if (sqlState(cause) !== '2201B') throw cause;
      const name = rule.category.startsWith('subject-token:') ? `the tokens of subject "${rule.category.slice(14)}"` : `pii.${rule.category.slice(4)}`;
      throw new ConfigError(`${file}: ${name}: not a valid PostgreSQL regular expression (${(cause as Error).message})`, { cause });
    }
  }
  const current = await session.query<{ id: number; category: string; label: string; pattern: string; check_fn: string | null }>(
    'SELECT id, category, label, pattern, check_fn FROM brain_private.deny_rules ORDER BY id',
  );
  const [allow] = await session.query<{ pattern: string }>('SELECT pattern FROM brain_private.deny_allow WHERE id = 1');
  const same =
    current.length === denyList.rules.length &&
    current.every((c, i) => {
      const r = denyList.rules[i]!;
      return c.id === r.id && c.category === r.category && c.label === r.label && c.pattern === r.pattern && c.check_fn === r.check;
    }) &&
    (allow?.pattern ?? '') === denyList.allowPattern;
  if (same) return false;
  await inTransaction(session, async () => {
    await session.exec('DELETE FROM brain_private.deny_rules; DELETE FROM brain_private.deny_allow');
    for (const r of denyList.rules) {
      await session.query('INSERT INTO brain_private.deny_rules (id, category, label, pattern, check_fn) VALUES ($1, $2, $3, $4, $5)', [
        r.id,
        r.category,
        r.label,
        r.pattern,
        r.check,
      ]);
    }
    if (denyList.allowPattern) await session.query('INSERT INTO brain_private.deny_allow (id, pattern) VALUES (1, $1)', [denyList.allowPattern]);
  });
  return true;
}
