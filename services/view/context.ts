// What every page reads through: the audit handle, a domain context per subject over it (so
// the product's own services, services/knowledge, search and lint, do the reading), and the
// embedder when the process has one (semantic search, pending and stale embeddings).
import type { SubjectsConfig } from '../../config/subjects.js';
import type { Kind } from '../../config/kinds.js';
import type { Embedder } from '../embeddings/embedder.js';
import { embeddingLintHooks } from '../curation/lint-hooks.js';
import type { LintEmbeddingHooks } from '../curation/lint.js';
import { createContext, type BrainContext, type Db } from '../knowledge/index.js';
import { modelOf } from '../search/embed-cards.js';
import type { EmbedModel } from '../search/pending.js';
import type { SearchDeps } from '../search/index.js';
import type { LintReport } from '../curation/lint.js';
import { countPending, subjectsWithVectors } from '../search/index.js';
import { BackgroundFigures } from './background.js';
import { lintFigures } from './lint-cache.js';

export interface ViewContext {
  readonly config: SubjectsConfig;
  readonly db: Db;
  readonly kinds: readonly Kind[];
  readonly subjects: readonly string[];
  /** A domain context acting as `subject`, on the audit handle: reads only. */
  ctx(subject: string): BrainContext;
  readonly searchDeps: SearchDeps;
  readonly lintHooks: LintEmbeddingHooks;
  /** The embedder's model, for pending embeddings; undefined without one. */
  readonly embedModel: EmbedModel | undefined;
  readonly lint: BackgroundFigures<LintReport>;
  /** Cards and episodes waiting for an embedding with the view's embedder; null without one or without vector tables. */
  readonly pending: BackgroundFigures<number | null>;
}

export async function createViewContext(config: SubjectsConfig, db: Db, embedder?: Embedder, knownKinds?: readonly Kind[]): Promise<ViewContext> {
  const kinds = knownKinds ?? (await createContext(config.subjects[0]!, db)).kinds;
  const contexts = new Map<string, BrainContext>(config.subjects.map((s) => [s.name, { subject: s, db, kinds }]));
  const lintHooks = embedder ? embeddingLintHooks(embedder) : {};
  const view: ViewContext = {
    config,
    db,
    kinds,
    subjects: config.subjects.map((s) => s.name),
    ctx(subject) {
      const c = contexts.get(subject);
      if (!c) throw new NotFound(`no subject "${subject}" in this brain`);
      return c;
    },
    searchDeps: embedder ? { embedder } : {},
    lintHooks,
    embedModel: embedder ? modelOf(embedder) : undefined,
    lint: lintFigures((subject) => view.ctx(subject), lintHooks),
    // An anti-join over every card: about a second at 100k cards on PGlite, so kept like lint.
    pending: new BackgroundFigures(async (subject) => {
      const model = embedder ? modelOf(embedder) : undefined;
      if (!model || (await subjectsWithVectors(db, [subject])).length === 0) return null;
      return countPending(db, subject, model);
    }),
  };
  return view;
}

/** A page or card that does not exist: answered 404 with the message. */
export class NotFound extends Error {
  override readonly name = 'NotFound';
}

/** A filter the page cannot use (a bad date, an unknown kind): answered 400 with the message. */
export class BadRequest extends Error {
  override readonly name = 'BadRequest';
}
