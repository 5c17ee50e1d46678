// Lint reports per subject, for the overview and the health page. Lint over 100k cards takes
// seconds (it reads every title's trigrams), too long for a page that must answer in well
// under a second, so the overview shows the last report with its age and asks for a new one in
// the background (background.ts); the health page waits for a fresh one. Lint itself
// (services/curation/lint.ts) only reads here: the view never asks it to apply anything, and
// the audit role could not.
import type { BrainContext } from '../knowledge/index.js';
import { lint, type LintEmbeddingHooks, type LintReport } from '../curation/lint.js';
import { BackgroundFigures, type Dated } from './background.js';

/** Items per list lint reports; a count that reaches it is shown as "at least". */
export const LINT_LIMIT = 1000;
/** Title similarity at or above which lint proposes a pair, for the health page's judgement to weigh. */
export const CANDIDATE_TITLE_SIMILARITY = 0.5;

export type LintEntry = Dated<LintReport>;

export function lintFigures(ctxOf: (subject: string) => BrainContext, hooks: LintEmbeddingHooks): BackgroundFigures<LintReport> {
  // One lint at a time: every subject's goes through the same audit handle, and lint's own gate
  // would refuse a second one as busy after 10 s.
  return new BackgroundFigures((subject) => lint(ctxOf(subject), { limit: LINT_LIMIT, titleSimilarity: CANDIDATE_TITLE_SIMILARITY }, hooks), true);
}
