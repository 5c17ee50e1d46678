// Opens once a start's servers listen: the embedded brain's PGlite start waits for it
// (db/open.ts, OpenOptions.startAfter), so Postgres's start does not hold the thread while the
// servers' modules load. Every way out of a start opens it too, a failure included, so that an
// open waiting on it goes on and can be closed cleanly.
export class ListenGate {
  private release: () => void = () => undefined;
  readonly opened: Promise<void> = new Promise((resolve) => {
    this.release = resolve;
  });

  open(): void {
    this.release();
  }
}
