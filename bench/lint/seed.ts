// A subject for lint to chew on: N topic cards whose titles are pseudo-words, about a fifth of
// them a small variation of an earlier card (a plural, a word added, dropped or re-cased, so
// that pg_trgm calls many of them near-duplicates) with a body to match (so that their
// vectors are close too); links between cards, some of them dead; tags with variants
// (yc-alum, yc_alum, "YC Alum"); episodes that mention some cards; and, where pgvector is,
// one hashed bag-of-words vector per card's first chunk (bench/search/synthetic.ts), a
// second chunk for some cards and a chunk per episode, so that lint's filters matter.
// Inserted directly as the admin, through the real triggers. Deterministic for a seed.
import { ident, type SqlSession } from '../../db/sql.js';
import { vectorText } from '../vector-text.js';
import { mulberry32 } from '../prng.js';
import { HashedEmbedder, Vocabulary } from '../search/synthetic.js';

export interface LintSeedOptions {
  topics: number;
  /** Add a vector per card (needs pgvector in the database). */
  vectors?: boolean;
  seed?: number;
  /** Fraction of cards that are a variation of an earlier one. */
  variants?: number;
  /** Groups of identical cards (same title and body) appended at the end: [groups, cards per group]. */
  clusters?: [number, number];
}

const KINDS = ['concept', 'tool', 'methodology', 'environment', 'decision', 'person', 'project'];
const TAGS = ['nas', 'backup', 'network', 'yc-alum', 'yc_alum', 'YC Alum', 'home-lab', 'home_lab', 'k8s', 'postgres', 'Postgres'];
const BATCH = 1000;

function vary(title: string, r: () => number, vocab: Vocabulary): string {
  const words = title.split(' ');
  const i = Math.floor(r() * words.length);
  switch (Math.floor(r() * 5)) {
    case 0:
      words[i] = `${words[i]}s`;
      break;
    case 1:
      words.push(vocab.pick(r));
      break;
    case 2:
      if (words.length > 2) words.splice(i, 1);
      else words.push(vocab.pick(r));
      break;
    case 3:
      words[i] = words[i]!.toUpperCase();
      break;
    default:
      words[i] = vocab.pick(r);
  }
  return words.join(' ');
}

/** Seeds `subject`; returns how many cards, links and tags it wrote. */
export async function seedLintSubject(admin: SqlSession, subject: string, opts: LintSeedOptions): Promise<{ topics: number; links: number; tags: number; episodes: number }> {
  const r = mulberry32(opts.seed ?? 12);
  const vocab = new Vocabulary(3_000, opts.seed ?? 12);
  const s = ident(subject);
  const variantShare = opts.variants ?? 0.2;
  const [nClusters, clusterSize] = opts.clusters ?? [0, 0];
  const total = opts.topics + nClusters * clusterSize;
  const titles: string[] = [];
  const bodies: string[] = [];
  let links = 0;
  let tags = 0;
  for (let start = 0; start < total; start += BATCH) {
    const n = Math.min(BATCH, total - start);
    const slugs: string[] = [];
    const ts: string[] = [];
    const bs: string[] = [];
    const ks: string[] = [];
    for (let i = 0; i < n; i++) {
      const k = start + i;
      let title: string;
      let body: string;
      if (k >= opts.topics) {
        // A cluster: every card of it a copy of the cluster's first card.
        const first = opts.topics + Math.floor((k - opts.topics) / clusterSize) * clusterSize;
        title = k === first ? vocab.sentence(r, 3) : titles[first]!;
        body = k === first ? vocab.sentence(r, 30) : bodies[first]!;
      } else if (k > 10 && r() < variantShare) {
        const of = Math.floor(r() * k);
        title = vary(titles[of]!, r, vocab);
        // The same body with a word or two changed: a near-duplicate by meaning.
        const words = bodies[of]!.split(' ');
        words[Math.floor(r() * words.length)] = vocab.pick(r);
        if (r() < 0.5) words.push(vocab.pick(r));
        body = words.join(' ');
      } else {
        title = vocab.sentence(r, 2 + Math.floor(r() * 4));
        body = vocab.sentence(r, 20 + Math.floor(r() * 40));
      }
      titles.push(title);
      bodies.push(body);
      slugs.push(`lint/${k}`);
      ts.push(title);
      bs.push(body);
      ks.push(KINDS[Math.floor(r() * KINDS.length)]!);
    }
    await admin.query(`INSERT INTO ${s}.topics (slug, kind, title, body) SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])`, [slugs, ks, ts, bs]);
    const ids = (await admin.query<{ id: number; slug: string }>(`SELECT id, slug FROM ${s}.topics WHERE slug = ANY($1::text[])`, [slugs])).map((x) => Number(x.id));
    const from: number[] = [];
    const to: string[] = [];
    const tagTopic: number[] = [];
    const tagName: string[] = [];
    for (const id of ids) {
      const nLinks = Math.floor(r() * 3);
      for (let j = 0; j < nLinks; j++) {
        from.push(id);
        // One link in twenty points at a card that does not exist.
        to.push(r() < 0.05 ? `gone/${Math.floor(r() * 1e6)}` : `lint/${Math.floor(r() * (start + n))}`);
      }
      const nTags = Math.floor(r() * 3);
      const chosen = new Set<string>();
      for (let j = 0; j < nTags; j++) chosen.add(TAGS[Math.floor(r() * TAGS.length)]!);
      for (const t of chosen) {
        tagTopic.push(id);
        tagName.push(t);
      }
    }
    if (from.length) {
      const inserted = await admin.query(
        `INSERT INTO ${s}.links (from_topic_id, to_subject, to_slug) SELECT f, $3, t FROM unnest($1::bigint[], $2::text[]) AS u(f, t) ON CONFLICT DO NOTHING RETURNING id`,
        [from, to, subject],
      );
      links += inserted.length;
    }
    if (tagTopic.length) {
      await admin.query(`INSERT INTO ${s}.topic_tags (topic_id, tag) SELECT * FROM unnest($1::bigint[], $2::text[])`, [tagTopic, tagName]);
      tags += tagTopic.length;
    }
  }
  // Episodes mentioning a few cards each (so that some cards are not orphans by links alone).
  const nEpisodes = Math.round(opts.topics / 10);
  if (nEpisodes > 0) {
    const et: string[] = [];
    const at: string[] = [];
    for (let i = 0; i < nEpisodes; i++) {
      et.push(vocab.sentence(r, 4));
      at.push(new Date(Date.UTC(2025, 0, 1) + Math.floor(r() * 600) * 86_400_000).toISOString());
    }
    const eps = await admin.query<{ id: number }>(`INSERT INTO ${s}.episodes (kind, title, detail, occurred_at) SELECT 'note', t, t, a FROM unnest($1::text[], $2::timestamptz[]) AS u(t, a) RETURNING id`, [et, at]);
    const pairs = new Set<string>();
    for (const e of eps) for (let j = 0; j < 2; j++) pairs.add(`${e.id}:${Math.floor(r() * opts.topics)}`);
    const [epIds, slugIdx] = [[...pairs].map((p) => Number(p.split(':')[0])), [...pairs].map((p) => `lint/${p.split(':')[1]}`)];
    await admin.query(
      `INSERT INTO ${s}.episode_topics (episode_id, topic_id) SELECT e, t.id FROM unnest($1::bigint[], $2::text[]) AS u(e, slug) JOIN ${s}.topics t ON t.slug = u.slug ON CONFLICT DO NOTHING`,
      [epIds, slugIdx],
    );
  }
  if (opts.vectors) await seedVectors(admin, subject);
  await admin.exec(`ANALYZE ${s}.topics; ANALYZE ${s}.links; ANALYZE ${s}.topic_tags`);
  return { topics: total, links, tags, episodes: nEpisodes };
}

/** The model name lint's hooks see for the hashed vectors: pass `new HashedEmbedder(512)` as the embedder. */
export const SEED_EMBEDDER = () => new HashedEmbedder(512);

async function seedVectors(admin: SqlSession, subject: string): Promise<void> {
  const e = SEED_EMBEDDER();
  const s = ident(subject);
  // Building the HNSW index once after the load is far faster than growing it row by row.
  await admin.exec(`DROP INDEX IF EXISTS ${s}.chunks_hnsw_${e.dimensions}`);
  for (let after = 0; ; ) {
    const rows = await admin.query<{ id: number; text: string; version: string }>(
      `SELECT id, title || E'\\n\\n' || body AS text, updated_at::text AS version FROM ${s}.topics WHERE id > $1 ORDER BY id LIMIT ${BATCH}`,
      [after],
    );
    if (rows.length === 0) break;
    after = Number(rows.at(-1)!.id);
    const ids: number[] = [];
    const idx: number[] = [];
    const texts: string[] = [];
    const vectors: string[] = [];
    for (const row of rows) {
      ids.push(row.id);
      idx.push(0);
      texts.push(row.text);
      vectors.push(vectorText(e.embed(row.text)));
      // Every seventh card has a second chunk: lint compares first chunks only.
      if (Number(row.id) % 7 === 0) {
        ids.push(row.id);
        idx.push(1);
        texts.push(row.text);
        vectors.push(vectorText(e.embed(row.text)));
      }
    }
    await admin.query(
      `INSERT INTO ${s}.chunks (topic_id, chunk_index, text, model, dims, content_hash, embedding)
       SELECT id, i, text, $5, $6, 'synthetic', v::brain_ext.vector FROM unnest($1::bigint[], $2::int[], $3::text[], $4::text[]) AS u(id, i, text, v)`,
      [ids, idx, texts, vectors, e.model, e.dimensions],
    );
    await admin.query(
      `INSERT INTO ${s}.embedding_state (topic_id, model, dims, source_updated_at, content_hash, chunk_count)
       SELECT id, $3, $4, v::timestamptz, 'synthetic', 1 FROM unnest($1::bigint[], $2::text[]) AS u(id, v)`,
      [rows.map((x) => x.id), rows.map((x) => x.version), e.model, e.dimensions],
    );
  }
  // Episodes' chunks: lint compares cards only.
  await admin.query(
    `INSERT INTO ${s}.chunks (episode_id, chunk_index, text, model, dims, content_hash, embedding)
     SELECT id, 0, title, $1, $2, 'synthetic', (SELECT c.embedding FROM ${s}.chunks c WHERE c.topic_id IS NOT NULL ORDER BY c.id LIMIT 1) FROM ${s}.episodes`,
    [e.model, e.dimensions],
  );
  await admin.exec(
    `CREATE INDEX chunks_hnsw_${e.dimensions} ON ${s}.chunks USING hnsw ((embedding::brain_ext.vector(${e.dimensions})) brain_ext.vector_cosine_ops) WHERE dims = ${e.dimensions}`,
  );
  await admin.exec(`ANALYZE ${s}.chunks; ANALYZE ${s}.embedding_state`);
}
