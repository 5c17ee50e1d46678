// memory.json of the reference MCP memory server (@modelcontextprotocol/server-memory):
// JSON Lines, each line an entity {"type":"entity","name","entityType","observations":[]}
// or a relation {"type":"relation","from","to","relationType"}. Entities become topics,
// relations become links whose context is the relation text. The older whole-file shape
// {"entities":[...],"relations":[...]} is read too.

export interface MemoryEntity {
  name: string;
  entityType: string;
  observations: string[];
}

export interface MemoryRelation {
  from: string;
  to: string;
  relationType: string;
}

export interface MemoryProblem {
  /** 1-based line in the file (0 for the whole file). */
  line: number;
  reason: string;
}

export interface MemoryGraph {
  entities: MemoryEntity[];
  relations: MemoryRelation[];
  problems: MemoryProblem[];
}

export interface MemoryTopic {
  slug: string;
  /** slugify(entityType): the caller maps it onto a kind. */
  kind: string;
  title: string;
  /** The observations as a markdown bullet list. */
  body: string;
}

export interface MemoryLink {
  fromSlug: string;
  toSlug: string;
  /** e.g. "Pedro works_at Brex". */
  context: string;
  relationType: string;
}

/**
 * Lowercase, letters and digits of any script kept (with their combining marks), every
 * other run of characters → "-", no "-" at either end. "Zoë Müller" → "zoë-müller",
 * "東京 タワー" → "東京-タワー". Returns `fallback` when nothing is left.
 */
export function slugify(text: string, fallback = 'untitled'): string {
  const slug = text
    .normalize('NFC')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
  return slug === '' ? fallback : slug;
}

export function parseMemoryJson(text: string, file = 'memory.json'): MemoryGraph {
  const graph: MemoryGraph = { entities: [], relations: [], problems: [] };
  const body = text.replace(/^\uFEFF/, '');
  const whole = tryParse(body);
  if (whole.ok && whole.value !== null && typeof whole.value === 'object' && !Array.isArray(whole.value) && !('type' in whole.value)) {
    const v = whole.value as { entities?: unknown; relations?: unknown };
    const items = [...(Array.isArray(v.entities) ? v.entities.map((e) => ({ type: 'entity', ...e })) : []), ...(Array.isArray(v.relations) ? v.relations.map((r) => ({ type: 'relation', ...r })) : [])];
    items.forEach((item) => addItem(graph, item, 0, file));
    return mergeDuplicates(graph, file);
  }
  body.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    const parsed = tryParse(line);
    if (!parsed.ok) graph.problems.push({ line: i + 1, reason: `${file}:${i + 1}: not valid JSON (${parsed.error}); line skipped` });
    else addItem(graph, parsed.value, i + 1, file);
  });
  return mergeDuplicates(graph, file);
}

/** Topics and links for a parsed graph. Slugs are "<entityType>/<name>", made unique. */
export function memoryToTopics(graph: MemoryGraph, file = 'memory.json'): { topics: MemoryTopic[]; links: MemoryLink[]; problems: MemoryProblem[] } {
  const problems: MemoryProblem[] = [];
  const taken = new Set<string>();
  const slugOf = new Map<string, string>();
  const topics = graph.entities.map((e) => {
    const kind = slugify(e.entityType, 'entity');
    const base = `${kind}/${slugify(e.name)}`;
    let slug = base;
    for (let n = 2; taken.has(slug); n++) slug = `${base}-${n}`;
    if (slug !== base) problems.push({ line: 0, reason: `${file}: entity "${e.name}" would take the slug ${base}, which another entity has; it is ${slug}` });
    taken.add(slug);
    slugOf.set(e.name, slug);
    return { slug, kind, title: e.name, body: e.observations.map(bullet).join('\n') };
  });
  const links: MemoryLink[] = [];
  for (const r of graph.relations) {
    const fromSlug = slugOf.get(r.from);
    const toSlug = slugOf.get(r.to);
    if (!fromSlug || !toSlug) {
      const missing = !fromSlug ? r.from : r.to;
      problems.push({ line: 0, reason: `${file}: relation "${r.from}" ${r.relationType} "${r.to}" names "${missing}", which is not an entity; relation skipped` });
      continue;
    }
    links.push({ fromSlug, toSlug, context: `${r.from} ${r.relationType} ${r.to}`, relationType: r.relationType });
  }
  return { topics, links, problems };
}

function bullet(observation: string): string {
  // Continuation lines are indented so a multi-line observation stays one list item.
  return `- ${observation.replace(/\r?\n/g, '\n  ')}`;
}

function addItem(graph: MemoryGraph, item: unknown, line: number, file: string): void {
  const where = line > 0 ? `${file}:${line}` : file;
  if (item === null || typeof item !== 'object' || Array.isArray(item)) {
    graph.problems.push({ line, reason: `${where}: not a JSON object; skipped` });
    return;
  }
  const o = item as Record<string, unknown>;
  if (o.type === 'entity') {
    if (typeof o.name !== 'string' || o.name.trim() === '') return void graph.problems.push({ line, reason: `${where}: entity without a name; skipped` });
    const observations = Array.isArray(o.observations) ? o.observations.filter((x): x is string => typeof x === 'string') : [];
    if (Array.isArray(o.observations) && observations.length !== o.observations.length) graph.problems.push({ line, reason: `${where}: entity "${o.name}" has observations that are not strings; they are skipped` });
    graph.entities.push({ name: o.name, entityType: typeof o.entityType === 'string' ? o.entityType : '', observations });
  } else if (o.type === 'relation') {
    if (typeof o.from !== 'string' || typeof o.to !== 'string' || typeof o.relationType !== 'string') {
      return void graph.problems.push({ line, reason: `${where}: relation needs string "from", "to" and "relationType"; skipped` });
    }
    graph.relations.push({ from: o.from, to: o.to, relationType: o.relationType });
  } else {
    graph.problems.push({ line, reason: `${where}: "type" is ${JSON.stringify(o.type)}, not "entity" or "relation"; skipped` });
  }
}

/** The server keys entities by name: a repeated name is one entity, observations merged. */
function mergeDuplicates(graph: MemoryGraph, file: string): MemoryGraph {
  const byName = new Map<string, MemoryEntity>();
  const entities: MemoryEntity[] = [];
  for (const e of graph.entities) {
    const seen = byName.get(e.name);
    if (!seen) {
      byName.set(e.name, e);
      entities.push(e);
      continue;
    }
    graph.problems.push({ line: 0, reason: `${file}: entity "${e.name}" appears more than once; its observations are merged` });
    for (const o of e.observations) if (!seen.observations.includes(o)) seen.observations.push(o);
  }
  graph.entities = entities;
  return graph;
}

function tryParse(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (cause) {
    return { ok: false, error: (cause as Error).message };
  }
}
