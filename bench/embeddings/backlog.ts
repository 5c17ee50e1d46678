// A realistic embedding backlog for the throughput benches: GBrain-style pages imported into the
// homelab subject of a fresh embedded brain with embeddings off, so every card is pending. Each
// page becomes a topic and one episode per timeline line; both are cards the worker embeds.
// Two corpora: `gbrain` (bench/gbrain/generate.ts: a few `##` sections and a timeline each) and
// `scale` (bench/scale/corpus.ts, issue 17's corpus: Zipf words, longer pages, 3-4 chunks each).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../config/runtime.js';
import { EmbeddedDatabase } from '../../db/embedded.js';
import { generateBrain } from '../gbrain/generate.js';
import { generateCorpus } from '../scale/corpus.js';

export type BacklogCorpus = 'gbrain' | 'scale';

export interface Backlog {
  /** BRAIN_HOME of the prepared brain: copy it before each run (a run embeds it). */
  home: string;
  configDir: string;
  port: number;
}

export interface CardText {
  title: string;
  summary: string;
  body: string;
}

/** The pending cards' text as the worker reads it (services/search/pending.ts): topics, then episodes. */
export interface BacklogCards {
  topics: CardText[];
  episodes: CardText[];
}

export function brainEnv(home: string, configDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', BRAIN_HOME: home, BRAIN_CONFIG_DIR: configDir, BRAIN_VIEW_PORT: 'off', ...extra };
}

export async function prepareBacklog(
  dir: string,
  pages: number,
  port: number,
  brainJs: string,
  corpus: BacklogCorpus = 'gbrain',
): Promise<{ backlog: Backlog; cards: BacklogCards }> {
  const configDir = join(dir, 'config');
  mkdirSync(configDir, { recursive: true });
  for (const f of ['kinds.yaml', 'deny-list.yaml']) copyFileSync(join(PACKAGE_ROOT, f), join(configDir, f));
  writeFileSync(join(configDir, 'subjects.yaml'), `role_prefix: brain_\nsubjects:\n  personal:\n    port: ${port - 1}\n  homelab:\n    port: ${port}\n`);
  if (corpus === 'scale') generateCorpus(join(dir, 'pages'), { pages, seed: 7 });
  else await generateBrain(join(dir, 'pages'), { pages, seed: 7 });
  const home = join(dir, 'home');
  const env = brainEnv(home, configDir, { BRAIN_EMBEDDER: 'none' });
  execFileSync(process.execPath, [brainJs, 'init'], { env, stdio: 'ignore' });
  execFileSync(process.execPath, [brainJs, 'import', join(dir, 'pages'), '--subject', 'homelab'], { env, stdio: 'ignore' });
  const db = await EmbeddedDatabase.open(join(home, 'data'));
  try {
    const order = 'ORDER BY updated_at DESC, id';
    const topics = await db.pg.query<CardText>(`SELECT title, summary, body FROM homelab.topics ${order}`);
    const episodes = await db.pg.query<CardText>(
      `SELECT title, summary, concat_ws(E'\\n\\n', nullif(detail, ''), nullif(source_label, '')) AS body FROM homelab.episodes ${order}`,
    );
    return { backlog: { home, configDir, port }, cards: { topics: topics.rows, episodes: episodes.rows } };
  } finally {
    await db.close();
  }
}

/** A fresh copy of the prepared brain, for one run. */
export function copyBrain(backlog: Backlog, to: string): string {
  cpSync(backlog.home, to, { recursive: true });
  return to;
}
