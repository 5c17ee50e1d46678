// The brain under load (bench/load/mcp-load.ts starts it as a child process): every subject
// served by serveAll, exactly as `brain up` serves them, from the runtime configuration in
// the environment. Over IPC it says where it listens, reports its own CPU time and memory on
// request, and closes cleanly when told (so that `--cpu-prof` writes its profile).
import { writeFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { loadRuntimeConfig } from '../../config/runtime.js';
import { createLogger } from '../../services/runtime/logger.js';
import { serveAll } from '../../services/runtime/serve.js';

export type ServeMessage = { type: 'cpu' } | { type: 'stop' };
export type ServeReply =
  | { type: 'up'; urls: Record<string, string>; mode: string }
  | { type: 'cpu'; user: number; system: number; rssMb: number }
  | { type: 'stopped' }
  | { type: 'failed'; message: string };

function send(message: ServeReply): void {
  process.send?.(message);
}

/**
 * With BRAIN_BENCH_SQL_STATS=FILE (embedded brain only): the time of every PGlite query, exec and
 * execProtocol call (db/pglite-dialect.ts sends a statement's messages in one), by statement text, written to FILE as JSON when the brain stops. PGlite runs one call at
 * a time on this thread, so a call's time is close to the CPU the WASM Postgres spent on it.
 */
export interface SqlStat {
  sql: string;
  calls: number;
  ms: number;
}

/** A statement's text with its variable parts folded: parameter numbers, numbers, VALUES lists of terms. */
export function statementKey(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .replace(/\$\d+/g, '$')
    .replace(/'[^']*'/g, "'…'")
    .replace(/\b\d+(\.\d+)?\b/g, 'N')
    .replace(/(\(brain\.lexeme_query\(\$::text\[\]\), \$::float8\)(, )?)+/g, '(terms…)')
    .trim();
}

/** The statement texts of a wire-protocol message batch: each Parse's query, else each simple Query's. */
export function protocolStatements(message: Uint8Array): string {
  const parsed: string[] = [];
  const simple: string[] = [];
  const cstring = (at: number) => {
    const end = message.indexOf(0, at);
    return { text: Buffer.from(message.subarray(at, end)).toString('utf8'), next: end + 1 };
  };
  for (let at = 0; at + 5 <= message.length; ) {
    const type = String.fromCharCode(message[at]!);
    const length = ((message[at + 1]! << 24) | (message[at + 2]! << 16) | (message[at + 3]! << 8) | message[at + 4]!) >>> 0;
    if (type === 'P') parsed.push(cstring(cstring(at + 5).next).text);
    else if (type === 'Q') simple.push(cstring(at + 5).text);
    at += 1 + length;
  }
  return (parsed.length ? parsed : simple).join(' ; ');
}

function recordSqlTimes(file: string): { reset(): void; write(): void } {
  const stats = new Map<string, SqlStat>();
  const add = (text: string, ms: number) => {
    const key = statementKey(text);
    const s = stats.get(key) ?? { sql: key, calls: 0, ms: 0 };
    s.calls++;
    s.ms += ms;
    stats.set(key, s);
  };
  const proto = PGlite.prototype as unknown as Record<'query' | 'exec' | 'execProtocol', (this: PGlite, first: never, ...rest: unknown[]) => Promise<unknown>>;
  for (const method of ['query', 'exec', 'execProtocol'] as const) {
    const original = proto[method];
    proto[method] = async function (this: PGlite, first: never, ...rest: unknown[]) {
      const t = performance.now();
      try {
        return await original.call(this, first, ...rest);
      } finally {
        add(method === 'execProtocol' ? protocolStatements(first as Uint8Array) : (first as string), performance.now() - t);
      }
    };
  }
  return {
    reset: () => stats.clear(),
    write: () => writeFileSync(file, JSON.stringify([...stats.values()].sort((a, b) => b.ms - a.ms))),
  };
}

async function main(): Promise<void> {
  const sqlStatsFile = process.env.BRAIN_BENCH_SQL_STATS;
  const sqlStats = sqlStatsFile ? recordSqlTimes(sqlStatsFile) : undefined;
  let measuring = false;
  delete process.env.BRAIN_BENCH_SQL_STATS;
  const rt = loadRuntimeConfig();
  const logger = createLogger('claude-brain', process.env.BRAIN_LOG_LEVEL ?? 'warn');
  const brain = await serveAll(rt, logger);
  process.on('message', (m: ServeMessage) => {
    if (m.type === 'cpu') {
      // The first request marks the start of the load: statements before it are not counted.
      if (!measuring) sqlStats?.reset();
      measuring = true;
      const { user, system } = process.cpuUsage();
      send({ type: 'cpu', user, system, rssMb: Math.round(process.memoryUsage().rss / 2 ** 20) });
    } else if (m.type === 'stop') {
      brain.close().then(
        () => {
          sqlStats?.write();
          send({ type: 'stopped' });
          process.disconnect?.();
          process.exitCode = 0;
          // Anything still holding the loop (a timer of a closed session) must not keep us.
          setTimeout(() => process.exit(0), 2_000).unref();
        },
        (error: unknown) => {
          send({ type: 'failed', message: (error as Error).message });
          process.exit(1);
        },
      );
    }
  });
  send({ type: 'up', mode: rt.mode, urls: Object.fromEntries(brain.servers.map((s) => [s.subject.name, s.url])) });
}

main().catch((error: unknown) => {
  send({ type: 'failed', message: (error as Error).stack ?? String(error) });
  process.exit(1);
});
