// Import of the reference MCP memory server's knowledge graph (memory.json, JSON Lines):
// each entity becomes a topic whose body is its observations, each relation a link from
// one entity's topic to the other's, with the relation as context ("Ada works_at Brex").
// Idempotent: a card or link that is already as the file says is not written again.
import { readFile } from 'node:fs/promises';
import { sql } from 'kysely';
import type { Kind } from '../../config/kinds.js';
import { write, type BrainContext } from '../knowledge/context.js';
import { asBrainError, BrainError } from '../knowledge/errors.js';
import { slug as slugSchema } from '../knowledge/schemas.js';
import { memoryToTopics, parseMemoryJson, type MemoryLink, type MemoryTopic } from './memory-json.js';

/** Entity type (slugified) → kind. Anything else becomes a concept. */
export const DEFAULT_ENTITY_KIND_MAP: Readonly<Record<string, string>> = Object.freeze({
  person: 'person',
  people: 'person',
  human: 'person',
  organization: 'company',
  organisation: 'company',
  company: 'company',
  business: 'company',
  project: 'project',
  tool: 'tool',
  software: 'tool',
  location: 'location',
  place: 'location',
  city: 'location',
  event: 'concept',
  concept: 'concept',
});

export interface MemoryImportOptions {
  /** Entity type → kind, laid over DEFAULT_ENTITY_KIND_MAP. */
  kindMap?: Record<string, string>;
  /** Kind for entity types the map does not name. Default "concept". */
  fallbackKind?: string;
  reason?: string;
}

export interface MemoryImportReport {
  subject: string;
  file: string;
  entities: number;
  relations: number;
  topics: { created: number; updated: number; unchanged: number; failed: number };
  links: { stored: number };
  failed: { entity: string; reason: string }[];
  warnings: string[];
  seconds: number;
}

export function entityKind(entityType: string, kinds: readonly Kind[], opts: MemoryImportOptions = {}): string {
  const map = { ...DEFAULT_ENTITY_KIND_MAP, ...opts.kindMap };
  const wanted = map[entityType] ?? opts.fallbackKind ?? 'concept';
  return kinds.some((k) => k.name === wanted && k.class === 'topic') ? wanted : (opts.fallbackKind ?? 'concept');
}

export async function importMemoryJson(ctx: BrainContext, file: string, opts: MemoryImportOptions = {}): Promise<MemoryImportReport> {
  const started = performance.now();
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    throw new BrainError('not_found', `${file}: cannot read it (${(cause as NodeJS.ErrnoException).code ?? cause})`, 'Pass the memory.json of the MCP memory server (MEMORY_FILE_PATH).');
  }
  const fallback = opts.fallbackKind ?? 'concept';
  if (!ctx.kinds.some((k) => k.name === fallback && k.class === 'topic')) {
    throw new BrainError('unknown_kind', `"${fallback}" is not a topic kind`, `Use one of: ${ctx.kinds.filter((k) => k.class === 'topic').map((k) => k.name).join(', ')}.`);
  }
  const graph = parseMemoryJson(text, file);
  const { topics, links, problems } = memoryToTopics(graph, file);
  const subject = ctx.subject.name;
  const report: MemoryImportReport = {
    subject,
    file,
    entities: graph.entities.length,
    relations: graph.relations.length,
    topics: { created: 0, updated: 0, unchanged: 0, failed: 0 },
    links: { stored: 0 },
    failed: [],
    warnings: [...graph.problems, ...problems].map((p) => p.reason),
    seconds: 0,
  };
  const existing = new Map(
    (await ctx.db.withSchema(subject).selectFrom('topics').select(['id', 'slug', 'kind', 'title', 'body']).execute()).map((t) => [t.slug, t]),
  );
  const outgoing = new Map<string, MemoryLink[]>();
  for (const l of links) outgoing.set(l.fromSlug, [...(outgoing.get(l.fromSlug) ?? []), l]);

  for (const t of topics) {
    const kind = entityKind(t.kind, ctx.kinds, opts);
    const name = t.title;
    if (!slugSchema.safeParse(t.slug).success) {
      report.topics.failed++;
      report.failed.push({ entity: name, reason: `the slug "${t.slug}" is not usable` });
      continue;
    }
    const have = existing.get(t.slug);
    const same = have && have.kind === kind && have.title === t.title && have.body === t.body;
    const mine = outgoing.get(t.slug) ?? [];
    try {
      // One transaction per entity, with its outgoing relations.
      await write(ctx, { operation: 'import', reason: opts.reason }, async (trx) => {
        const s = trx.withSchema(subject);
        const id = have ? have.id : (await s.insertInto('topics').values(card(t, kind)).returning('id').executeTakeFirstOrThrow()).id;
        if (have && !same) await s.updateTable('topics').set(card(t, kind)).where('id', '=', id).execute();
        if (mine.length === 0) return;
        // One link per pair of entities: several relations between them share it, their texts joined.
        const byTarget = new Map<string, string[]>();
        for (const l of mine) byTarget.set(l.toSlug, [...(byTarget.get(l.toSlug) ?? []), l.context]);
        const rows = [...byTarget].map(([to, contexts]) => ({ from_topic_id: id, to_subject: subject, to_slug: to, relation: 'relates-to' as const, context: contexts.join('; ') }));
        await s
          .insertInto('links')
          .values(rows)
          .onConflict((oc) =>
            oc
              .columns(['from_topic_id', 'to_subject', 'to_slug', 'relation'])
              .doUpdateSet({ context: (eb) => eb.ref('excluded.context') })
              .where(sql<boolean>`links.context IS DISTINCT FROM excluded.context`),
          )
          .execute();
      });
      report.links.stored += new Set(mine.map((l) => l.toSlug)).size;
      if (!have) report.topics.created++;
      else if (same) report.topics.unchanged++;
      else report.topics.updated++;
    } catch (error) {
      const e = asBrainError(error, name);
      report.topics.failed++;
      report.failed.push({ entity: name, reason: (e as Error).message });
    }
  }
  report.seconds = (performance.now() - started) / 1000;
  return report;
}

function card(t: MemoryTopic, kind: string) {
  return { slug: t.slug, kind, title: t.title, body: t.body };
}
