// Lint reports per subject, kept for the overview. Lint over 100k cards takes seconds (it reads
// every title's trigrams), too long for a page that must answer in well under a second, so the
// overview shows the last report with its age and asks for a new one in the background; the
// health page waits for a fresh one. Lint itself (services/curation/lint.ts) only reads here:
// the view never asks it to apply anything, and the audit role could not.
import type { BrainContext } from '../knowledge/index.js';
import { lint, type LintEmbeddingHooks, type LintReport } from '../curation/lint.js';

/** Items per list lint reports; a count that reaches it is shown as "at least". */
export const LINT_LIMIT = 1000;
/** Title similarity at or above which lint proposes a pair, for the health page's judgement to weigh. */
export const CANDIDATE_TITLE_SIMILARITY = 0.5;

export interface LintEntry {
  readonly report: LintReport;
  readonly at: Date;
}

export class LintCache {
  private readonly entries = new Map<string, LintEntry>();
  private readonly running = new Map<string, Promise<LintEntry>>();

  constructor(
    private readonly ctxOf: (subject: string) => BrainContext,
    private readonly hooks: LintEmbeddingHooks,
  ) {}

  last(subject: string): LintEntry | undefined {
    return this.entries.get(subject);
  }

  /** A report at most maxAgeMs old, running lint if there is none (one run per subject at a time). */
  async fresh(subject: string, maxAgeMs = 0): Promise<LintEntry> {
    const have = this.entries.get(subject);
    if (have && Date.now() - have.at.getTime() <= maxAgeMs) return have;
    return this.refresh(subject);
  }

  /** Starts a run unless one is under way; failures are kept for the next caller to see. */
  refresh(subject: string): Promise<LintEntry> {
    const under = this.running.get(subject);
    if (under) return under;
    const run = lint(this.ctxOf(subject), { limit: LINT_LIMIT, titleSimilarity: CANDIDATE_TITLE_SIMILARITY }, this.hooks)
      .then((report) => {
        const entry = { report, at: new Date() };
        this.entries.set(subject, entry);
        return entry;
      })
      .finally(() => this.running.delete(subject));
    this.running.set(subject, run);
    return run;
  }

  /** In the background: the overview does not wait for it. Errors are dropped (the health page shows them). */
  refreshInBackground(subject: string, olderThanMs: number): void {
    const have = this.entries.get(subject);
    if (have && Date.now() - have.at.getTime() <= olderThanMs) return;
    this.refresh(subject).catch(() => undefined);
  }

  /** Waits for the runs under way (tests and shutdown). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.running.values()]);
  }
}
