// The order in which work gets the embedded brain's one connection. PGlite runs one statement at
// a time, so every statement of every subject queues for it (db/mutex.ts). A tool call makes
// several trips to the database (search before add: plans, candidate searches, the write); in
// plain arrival order each trip queues behind every call that arrived since the last one, so
// under 20 clients a remember waited behind the queue five or six times and its latency grew
// with its trips. Instead each trip carries the time its tool call started, and the oldest work
// goes first: a call that has started finishes before newer calls take their turns. Work outside
// a tool call (the embedding worker, maintenance) is ordered by the time it asks.
import { AsyncLocalStorage } from 'node:async_hooks';

const started = new AsyncLocalStorage<number>();

/** Runs `work` as one unit of work that started now (an enclosing unit keeps its own start). */
export function asOneUnitOfWork<T>(work: () => T): T {
  return started.getStore() === undefined ? started.run(performance.now(), work) : work();
}

/** The priority of a trip to the database now: its unit of work's start, or now (smaller goes first). */
export function workPriority(): number {
  return started.getStore() ?? performance.now();
}

/**
 * Background work (the embedding worker's polls, maintenance) against an embedded brain that
 * sleeps while idle (db/embedded.ts): its statements never wake a sleeping brain (they fail
 * with BrainAsleepError instead) and are not a use that keeps it awake, until the work calls
 * `foreground()` (it found something to do: a backlog of cards to embed keeps the brain awake
 * until it is done).
 */
export class BrainAsleepError extends Error {
  constructor() {
    super('the embedded brain is asleep (closed while idle); background work waits for the next request');
    this.name = 'BrainAsleepError';
  }
}

const background = new AsyncLocalStorage<{ background: boolean }>();

/** Runs `work` as background work (see BrainAsleepError). */
export function asBackgroundWork<T>(work: (scope: { foreground(): void }) => T): T {
  const scope = { background: true };
  return background.run(scope, () =>
    work({
      foreground: () => {
        scope.background = false;
      },
    }),
  );
}

/** Whether the current work is background work. */
export function isBackgroundWork(): boolean {
  return background.getStore()?.background === true;
}
