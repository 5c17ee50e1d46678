// A figure per subject that is too slow to compute inside a page request at 100k cards, kept
// with the time it was computed: a page shows the last value and its age, and asks for a new
// one in the background once it is older than it should be. One computation per subject at a
// time. The lint reports (lint-cache.ts) and the pending-embedding counts are kept so.
export interface Dated<T> {
  readonly value: T;
  readonly at: Date;
}

export class BackgroundFigures<T> {
  private readonly entries = new Map<string, Dated<T>>();
  private readonly running = new Map<string, Promise<Dated<T>>>();

  /** The computations in order when `serial` (one after another across subjects). */
  private queue: Promise<unknown> = Promise.resolve();

  /**
   * `serial`: one computation at a time over all subjects. Lint needs it: it lets one lint run
   * per database handle and tells a second it is busy after 10 s (services/curation/lint-batches.ts),
   * and the view reads every subject through the one audit handle.
   */
  constructor(
    private readonly compute: (subject: string) => Promise<T>,
    private readonly serial = false,
  ) {}

  last(subject: string): Dated<T> | undefined {
    return this.entries.get(subject);
  }

  /** A value at most maxAgeMs old, computing one if there is none (joining a computation under way). */
  async fresh(subject: string, maxAgeMs = 0): Promise<Dated<T>> {
    const have = this.entries.get(subject);
    if (have && Date.now() - have.at.getTime() <= maxAgeMs) return have;
    return this.refresh(subject);
  }

  refresh(subject: string): Promise<Dated<T>> {
    const under = this.running.get(subject);
    if (under) return under;
    const started = this.serial ? this.queue.then(() => this.compute(subject)) : this.compute(subject);
    if (this.serial) this.queue = started.catch(() => undefined);
    const run = started
      .then((value) => {
        const entry = { value, at: new Date() };
        this.entries.set(subject, entry);
        return entry;
      })
      .finally(() => this.running.delete(subject));
    this.running.set(subject, run);
    return run;
  }

  /** Not waited for; a failure is dropped here (the next caller of fresh() sees it). */
  refreshInBackground(subject: string, olderThanMs: number): void {
    const have = this.entries.get(subject);
    if (have && Date.now() - have.at.getTime() <= olderThanMs) return;
    this.refresh(subject).catch(() => undefined);
  }

  async settle(): Promise<void> {
    await Promise.allSettled([...this.running.values()]);
  }
}
