// Helpers for the stack suite: brain-up.sh, docker and psql in the db container, run as a
// user would from the stack's project folder (BRAIN_STACK_DIR, a scratch copy made by run.sh).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseSubjects, type Subject } from '../../config/subjects.js';
import { connectClient, text } from '../support/mcp.js';

export const DIR = process.env.BRAIN_STACK_DIR ?? '';
if (!DIR) throw new Error('BRAIN_STACK_DIR must name the stack\'s project folder; run test/stack/run.sh');

/** Containers are named by the compose project pinned in docker-compose.yml. */
export const container = (service: string) => `claude-brain-${service}-1`;

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function run(cmd: string, args: string[], opts: { input?: string; env?: Record<string, string>; cwd?: string } = {}): Run {
  const r = spawnSync(cmd, args, { cwd: opts.cwd ?? DIR, encoding: 'utf8', input: opts.input ?? '', timeout: 900_000, env: { ...process.env, ...opts.env } });
  return { code: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? String(r.error ?? '') };
}

/** ./brain-up.sh ARGS, its output echoed so CI's log shows each table of servers. */
export function brainUp(args: string[] = [], input?: string): Run {
  const r = run('bash', [join(DIR, 'brain-up.sh'), ...args], { input });
  console.log(`$ ./brain-up.sh ${args.join(' ')} (exit ${r.code})\n${r.stdout}${r.stderr}`);
  return r;
}

export function docker(...args: string[]): Run {
  return run('docker', args);
}

/** One value or rows (|-separated) from psql as the superuser in a Postgres container. */
export function psql(sql: string, db = container('db')): string {
  const r = docker('exec', db, 'psql', '-U', 'postgres', '-d', 'brain', '-v', 'ON_ERROR_STOP=1', '-Atc', sql);
  if (r.code !== 0) throw new Error(`psql in ${db} failed: ${r.stderr}`);
  return r.stdout.trim();
}

export function subjects(): readonly Subject[] {
  return parseSubjects(readFileSync(join(DIR, 'subjects.yaml'), 'utf8'), 'subjects.yaml').subjects;
}

export function portOf(subject: string): number {
  const s = subjects().find((x) => x.name === subject);
  if (!s) throw new Error(`no subject ${subject} in ${DIR}/subjects.yaml`);
  return s.port;
}

/**
 * fetch keeps idle connections to a published port open; after brain-up.sh recreates the
 * containers, the first request on such a connection meets a closed socket (UND_ERR_SOCKET)
 * before it reaches any server. A real client reconnects the same way: once, and only for that.
 */
export async function onFreshSocket<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    if (cause?.code !== 'UND_ERR_SOCKET') throw error;
    return fn();
  }
}

/** Calls a tool on a subject's server over MCP and returns the result's text; a tool error throws. */
export async function callTool(subject: string, name: string, args: Record<string, unknown>): Promise<string> {
  const client = await onFreshSocket(() => connectClient(`http://127.0.0.1:${portOf(subject)}/mcp`));
  try {
    const result = await client.callTool({ name, arguments: args });
    if (result.isError) throw new Error(`${subject}: ${name} failed: ${text(result)}`);
    return text(result);
  } finally {
    await client.close();
  }
}

export async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, seconds = 120): Promise<T> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up after ${seconds}s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}
