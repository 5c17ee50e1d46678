// A token bucket per key (the MCP session, or the client address before a session
// exists): bursts are fine, a runaway loop is slowed down. A request costs one token per
// JSON-RPC message it carries, so a batch of 100 calls costs 100, not 1.
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly perSecond: number,
    readonly burst: number,
  ) {}

  /** Takes `cost` tokens from key's bucket, or none and false when it holds fewer. */
  take(key: string, cost = 1, now = Date.now()): boolean {
    const b = this.buckets.get(key) ?? { tokens: this.burst, at: now };
    b.tokens = Math.min(this.burst, b.tokens + ((now - b.at) / 1000) * this.perSecond);
    b.at = now;
    if (b.tokens < cost) {
      this.buckets.set(key, b);
      return false;
    }
    b.tokens -= cost;
    this.buckets.set(key, b);
    return true;
  }

  forget(key: string): void {
    this.buckets.delete(key);
  }
}
