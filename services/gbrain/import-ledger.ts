// What an import keeps of each page between writing it and the content check: the card's id
// and a digest of the file as read (its path and its bytes' hash), and of its sidecar. A fixed
// 40 bytes a page in typed arrays, where the path, slug and hash strings took a few hundred bytes
// of JavaScript heap a page: at 100,000 pages that bookkeeping was a good part of why the
// import's peak grew with the corpus (docs/performance.md).
import { createHash } from 'node:crypto';

const DIGEST = 32;

/** The digest a file is checked by: its path and the hex SHA-256 of its bytes. */
export function fileDigest(relPath: string, sha256: string): Buffer {
  return createHash('sha256').update(relPath).update('\0').update(sha256).digest();
}

export interface LedgerEntry {
  topicId: number;
  page: Buffer;
  /** Set when the page came with a sidecar. */
  sidecar?: Buffer;
}

export class PageLedger {
  #ids = new Float64Array(1024);
  #digests = Buffer.alloc(1024 * DIGEST);
  /** Card id → its sidecar's digest: only a few pages have one. */
  readonly #sidecars = new Map<number, Buffer>();
  #size = 0;

  get size(): number {
    return this.#size;
  }

  add(topicId: number, page: { relPath: string; sha256: string }, sidecar?: { relPath: string; sha256: string }): void {
    if (this.#size === this.#ids.length) {
      const ids = new Float64Array(this.#ids.length * 2);
      ids.set(this.#ids);
      this.#ids = ids;
      const digests = Buffer.alloc(this.#digests.length * 2);
      this.#digests.copy(digests);
      this.#digests = digests;
    }
    this.#ids[this.#size] = topicId;
    fileDigest(page.relPath, page.sha256).copy(this.#digests, this.#size * DIGEST);
    if (sidecar) this.#sidecars.set(topicId, fileDigest(sidecar.relPath, sidecar.sha256));
    this.#size++;
  }

  /** Entries from..to (exclusive), in the order they were added. */
  slice(from: number, to: number): LedgerEntry[] {
    const out: LedgerEntry[] = [];
    for (let i = from; i < Math.min(to, this.#size); i++) {
      const topicId = this.#ids[i]!;
      const sidecar = this.#sidecars.get(topicId);
      out.push({ topicId, page: this.#digests.subarray(i * DIGEST, (i + 1) * DIGEST), ...(sidecar ? { sidecar } : {}) });
    }
    return out;
  }
}
