// Synthetic subjects for the latency benchmark: topics and episodes of Zipf-distributed
// pseudo-words (so full-text matching behaves like text: a few very common words, a long
// tail), and, where pgvector is, one vector per card from a hashed bag-of-words embedder,
// inserted directly. Embedding 100k texts with the offline model would take over an hour;
// the hashed vectors cost nothing and exercise the index identically (same dimension).
import { ident, type SqlSession } from '../../db/sql.js';
import type { Embedder, EmbedderHealth } from '../../services/embeddings/embedder.js';
import { vectorText } from '../vector-text.js';
import { mulberry32 } from '../prng.js';

/** Deterministic PRNG (mulberry32), so every run generates the same brain. */
export const rng = mulberry32;

const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'ber', 'dan', 'fel', 'gor', 'hal', 'jin', 'kor', 'lum', 'mar', 'nor', 'pel', 'qua', 'ris', 'sol', 'tam', 'vel', 'wen', 'zar'];

/** Zipf ranks taken by stop words in real text (see Vocabulary). */
export const STOP_RANKS = 100;

export class Vocabulary {
  readonly words: string[];
  private readonly cumulative: number[];
  constructor(size: number, seed = 7) {
    const r = rng(seed);
    const seen = new Set<string>();
    while (seen.size < size) {
      const n = 2 + Math.floor(r() * 3);
      let w = '';
      for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(r() * SYLLABLES.length)]!;
      seen.add(w);
    }
    this.words = [...seen];
    // Zipf (s = 1) as in real text, with the 100 most frequent ranks left out: in English
    // those are the stop words (the, of, and, ...) that to_tsvector drops before anything is
    // matched. Word i has weight 1 / (i + 1 + STOP_RANKS).
    let total = 0;
    this.cumulative = this.words.map((_, i) => (total += 1 / (i + 1 + STOP_RANKS)));
  }
  pick(r: () => number): string {
    const x = r() * this.cumulative.at(-1)!;
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return this.words[lo]!;
  }
  sentence(r: () => number, n: number): string {
    return Array.from({ length: n }, () => this.pick(r)).join(' ');
  }
}

/** Bag-of-words hashed into `dims` buckets with a sign, L2-normalised: shared words, similar vectors. */
export class HashedEmbedder implements Embedder {
  readonly model: string;
  constructor(readonly dimensions = 512) {
    this.model = `hashed-bow-${dimensions}`;
  }
  embed(text: string): number[] {
    const v = new Array<number>(this.dimensions).fill(0);
    for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
      let h = 2166136261;
      for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 16777619);
      for (let k = 0; k < 3; k++) {
        h = Math.imul(h ^ (h >>> 13), 0x5bd1e995);
        v[(h >>> 0) % this.dimensions]! += h & 1 ? 1 : -1;
      }
    }
    const norm = Math.hypot(...v);
    if (norm === 0) {
      v[0] = 1; // no words: still a valid unit vector
      return v;
    }
    return v.map((x) => x / norm);
  }
  async embedDocuments(texts: string[]): Promise<number[][]> {
    return texts.map((t) => this.embed(t));
  }
  async embedQuery(text: string): Promise<number[]> {
    return this.embed(text);
  }
  async health(): Promise<EmbedderHealth> {
    return { ok: true };
  }
}

export interface GenerateOptions {
  topics: number;
  episodes: number;
  vectors: HashedEmbedder | undefined;
  seed?: number;
  log?: (line: string) => void;
}

const BATCH = 1000;

/** Fills `subject` with synthetic cards (through the real triggers) and, optionally, their vectors. */
export async function generateSubject(admin: SqlSession, subject: string, vocab: Vocabulary, opts: GenerateOptions): Promise<void> {
  const r = rng(opts.seed ?? 42);
  const s = ident(subject);
  const kinds = ['concept', 'tool', 'methodology', 'environment', 'decision', 'person', 'project'];
  for (let start = 0; start < opts.topics; start += BATCH) {
    const n = Math.min(BATCH, opts.topics - start);
    const slugs: string[] = [];
    const titles: string[] = [];
    const bodies: string[] = [];
    const ks: string[] = [];
    for (let i = 0; i < n; i++) {
      slugs.push(`syn/${start + i}`);
      titles.push(vocab.sentence(r, 3 + Math.floor(r() * 4)));
      bodies.push(vocab.sentence(r, 40 + Math.floor(r() * 80)));
      ks.push(kinds[Math.floor(r() * kinds.length)]!);
    }
    await admin.query(`INSERT INTO ${s}.topics (slug, kind, title, body) SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])`, [slugs, ks, titles, bodies]);
    if ((start / BATCH) % 20 === 19) opts.log?.(`    ${start + n} topics`);
  }
  for (let start = 0; start < opts.episodes; start += BATCH) {
    const n = Math.min(BATCH, opts.episodes - start);
    const titles: string[] = [];
    const details: string[] = [];
    const at: string[] = [];
    for (let i = 0; i < n; i++) {
      titles.push(vocab.sentence(r, 4 + Math.floor(r() * 4)));
      details.push(vocab.sentence(r, 20 + Math.floor(r() * 40)));
      at.push(new Date(Date.UTC(2025, 0, 1) + Math.floor(r() * 600) * 86_400_000).toISOString());
    }
    await admin.query(`INSERT INTO ${s}.episodes (kind, title, detail, occurred_at) SELECT 'note', * FROM unnest($1::text[], $2::text[], $3::timestamptz[])`, [titles, details, at]);
  }
  if (!opts.vectors) {
    await admin.exec(`ANALYZE ${s}.topics; ANALYZE ${s}.episodes`);
    return;
  }
  const e = opts.vectors;
  // Building the HNSW index once after the load is far faster than growing it row by row.
  await admin.exec(`DROP INDEX IF EXISTS ${s}.chunks_hnsw_${e.dimensions}`);
  for (const table of ['topics', 'episodes'] as const) {
    const col = table === 'topics' ? 'topic_id' : 'episode_id';
    const text = table === 'topics' ? 'title || E\'\\n\\n\' || body' : 'title || E\'\\n\\n\' || detail';
    for (let after = 0; ; ) {
      const rows = await admin.query<{ id: number; text: string; version: string }>(
        `SELECT id, ${text} AS text, updated_at::text AS version FROM ${s}.${table} WHERE id > $1 ORDER BY id LIMIT ${BATCH}`,
        [after],
      );
      if (rows.length === 0) break;
      after = Number(rows.at(-1)!.id);
      const vectors = rows.map((row) => vectorText(e.embed(row.text)));
      await admin.query(
        `INSERT INTO ${s}.chunks (${col}, chunk_index, text, model, dims, content_hash, embedding)
         SELECT id, 0, text, $4, $5, 'synthetic', v::brain_ext.vector FROM unnest($1::bigint[], $2::text[], $3::text[]) AS u(id, text, v)`,
        [rows.map((x) => x.id), rows.map((x) => x.text), vectors, e.model, e.dimensions],
      );
      await admin.query(
        `INSERT INTO ${s}.embedding_state (${col}, model, dims, source_updated_at, content_hash, chunk_count)
         SELECT id, $3, $4, v::timestamptz, 'synthetic', 1 FROM unnest($1::bigint[], $2::text[]) AS u(id, v)`,
        [rows.map((x) => x.id), rows.map((x) => x.version), e.model, e.dimensions],
      );
    }
  }
  const t = performance.now();
  await admin.exec(`SET maintenance_work_mem = '512MB'`);
  await admin.exec(
    `CREATE INDEX chunks_hnsw_${e.dimensions} ON ${s}.chunks USING hnsw ((embedding::brain_ext.vector(${e.dimensions})) brain_ext.vector_cosine_ops) WHERE dims = ${e.dimensions}`,
  );
  opts.log?.(`    HNSW index built in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  await admin.exec(`ANALYZE ${s}.topics; ANALYZE ${s}.episodes; ANALYZE ${s}.chunks; ANALYZE ${s}.embedding_state`);
}
