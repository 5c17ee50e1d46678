/**
 * An async mutex that grants the lock to the waiter with the smallest priority (db/work-order.ts:
 * the start time of its work), and among equals to the first that asked. Without a priority a
 * waiter is ordered by the time it asks, which is first come, first served.
 */
export class Mutex {
  private held = false;
  /** Sorted by priority, then by arrival. */
  private readonly queue: { priority: number; grant: () => void }[] = [];

  /** Whether the lock is held now. */
  get busy(): boolean {
    return this.held;
  }

  /** How many wait for it. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Waits for the lock and returns its release function. */
  acquire(priority: number = performance.now()): Promise<() => void> {
    if (!this.held) {
      this.held = true;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve) => {
      const waiter = { priority, grant: () => resolve(this.releaser()) };
      let at = this.queue.length;
      while (at > 0 && this.queue[at - 1]!.priority > priority) at--;
      this.queue.splice(at, 0, waiter);
    });
  }

  async run<T>(fn: () => Promise<T>, priority?: number): Promise<T> {
    const release = await this.acquire(priority);
    try {
      return await fn();
    } finally {
      release();
    }
  }

  /** A release function that works once (a second call must not hand the lock on twice). */
  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.queue.shift();
      if (next) next.grant();
      else this.held = false;
    };
  }
}
