// Opens once a start's servers listen and their first clients have been answered: the embedded
// brain's PGlite start waits for it (db/open.ts, OpenOptions.startAfter). Postgres's start holds
// the thread for most of a second; before it, the servers' modules load and they listen, and a
// client that connects at once gets its initialize and tools/list answered (they need no
// database). Every way out of a start opens it too, a failure included, so that an open waiting
// on it goes on and can be closed cleanly.
import type { EventEmitter } from 'node:events';

/** No request on the servers for this long after they listen: PGlite starts. */
export const LISTEN_QUIET_MS = 50;
/** ... or this long after they listen, however busy they are. */
export const LISTEN_WAIT_MAX_MS = 300;

export class ListenGate {
  private release: () => void = () => undefined;
  private done = false;
  private cancel: () => void = () => undefined;
  readonly opened: Promise<void> = new Promise((resolve) => {
    this.release = resolve;
  });

  open(): void {
    if (this.done) return;
    this.done = true;
    this.cancel();
    this.release();
  }

  /**
   * Opens once `servers` (node http.Server instances, listening) have had no request for
   * `quietMs`, or after `maxMs` at most. A request that needs the database waits for the open
   * anyway; what comes first is whatever needs none (a health check, initialize, tools/list).
   */
  openWhenQuiet(servers: readonly EventEmitter[], quietMs = LISTEN_QUIET_MS, maxMs = LISTEN_WAIT_MAX_MS): void {
    if (this.done) return;
    let quiet: NodeJS.Timeout | undefined;
    const arm = () => {
      clearTimeout(quiet);
      quiet = setTimeout(() => this.open(), quietMs);
    };
    const cap = setTimeout(() => this.open(), maxMs);
    this.cancel = () => {
      clearTimeout(quiet);
      clearTimeout(cap);
      for (const s of servers) s.off('request', arm);
    };
    for (const s of servers) s.on('request', arm);
    arm();
  }
}
