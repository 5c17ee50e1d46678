// How long each step of a start took, counted from the process's own start (Node's
// performance.now() is 0 when the process began), so the first step includes Node itself and
// loading the modules. `brain up` logs the list at info level and prints its total and the
// slowest steps under the banner; bench/cli/latency.ts reads the time to the banner.

export interface StartPhase {
  readonly phase: string;
  /** How long this step took. */
  readonly ms: number;
  /** Since the process started, at the step's end. */
  readonly at: number;
}

export class StartPhases {
  private last = 0;
  readonly list: StartPhase[] = [];

  /** Ends the current step, naming it. */
  readonly mark = (phase: string): void => {
    const now = performance.now();
    this.list.push({ phase, ms: Math.round(now - this.last), at: Math.round(now) });
    this.last = now;
  };

  get total(): number {
    return Math.round(this.last);
  }

  /** "2.1 s: modules 480 ms, PGlite opened 1,240 ms, ..." */
  summary(): string {
    return `${(this.total / 1000).toFixed(1)} s: ${phaseList(this.list)}`;
  }
}

/** "modules 480 ms, PGlite opened 1,240 ms" */
export function phaseList(phases: readonly StartPhase[]): string {
  return phases.map((p) => `${p.phase} ${groupThousands(p.ms)} ms`).join(', ');
}

/**
 * 1240 -> "1,240", as toLocaleString('en') writes it. Not toLocaleString itself: its first call
 * in a process loads ICU's locale data, 23-40 ms of the main thread on this VM, and a server
 * prints its start line just as a client's first request comes in.
 */
export function groupThousands(n: number): string {
  return String(Math.trunc(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
