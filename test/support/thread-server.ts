// An HTTP server on a worker thread of its own, for tests that hold this thread with
// Atomics.wait (as a statement of the embedded database holds it) while the server goes on
// answering or closing connections. The server's code gets `shared` (an Int32Array on shared
// memory) as workerData to count what it sees, posts its port once listening and closes on
// any message; holdUntil waits on one of the counters without the event loop.
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';

export interface ThreadServer {
  /** http://127.0.0.1:PORT */
  url: string;
  close(): Promise<void>;
}

/** The server whose CommonJS `code` runs on a new thread, once it listens. */
export async function serverOnAThread(code: string, shared: Int32Array): Promise<ThreadServer> {
  const worker = new Worker(code, { eval: true, workerData: shared });
  const [port] = (await once(worker, 'message')) as [number];
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      worker.postMessage('close');
      await once(worker, 'exit');
    },
  };
}

/** Holds this thread until shared[index] reaches `count`: 'ok', or 'timed-out' after `ms`. */
export function holdUntil(shared: Int32Array, index: number, count: number, ms: number): 'ok' | 'timed-out' {
  const until = Date.now() + ms;
  for (;;) {
    const now = Atomics.load(shared, index);
    if (now >= count) return 'ok';
    if (Date.now() >= until) return 'timed-out';
    Atomics.wait(shared, index, now, until - Date.now());
  }
}
