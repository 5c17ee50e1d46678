// The embedded brain's connection lock (db/mutex.ts) and the order of work (db/work-order.ts):
// the oldest unit of work goes first, equals in the order they asked, and a release hands the
// lock on exactly once.
import { describe, expect, it } from 'vitest';
import { Mutex } from '../../db/mutex.js';
import { asOneUnitOfWork, workPriority } from '../../db/work-order.js';

const tick = () => new Promise((r) => setImmediate(r));

describe('Mutex', () => {
  it('grants waiters by priority, equal priorities in the order they asked', async () => {
    const m = new Mutex();
    const release = await m.acquire(0);
    const order: string[] = [];
    // Each waiter records its turn and hands the lock on at once.
    const wait = (name: string, priority: number) => m.acquire(priority).then((r) => {
      order.push(name);
      r();
    });
    const waiters = [wait('c', 3), wait('a1', 1), wait('b', 2), wait('a2', 1)];
    await tick();
    expect(order).toEqual([]);
    release();
    await Promise.all(waiters);
    expect(order).toEqual(['a1', 'a2', 'b', 'c']);
  });

  it('with no priority given, serves in arrival order', async () => {
    const m = new Mutex();
    const order: number[] = [];
    await Promise.all([1, 2, 3, 4].map((i) => m.run(async () => {
      order.push(i);
      await tick();
    })));
    expect(order).toEqual([1, 2, 3, 4]);
  });

  it('a second release does not hand the lock to a second waiter', async () => {
    const m = new Mutex();
    const release = await m.acquire();
    let granted = 0;
    const w1 = m.acquire().then((r) => (granted++, r));
    const w2 = m.acquire().then((r) => (granted++, r));
    release();
    release();
    await tick();
    expect(granted).toBe(1);
    (await w1)();
    (await w2)();
    expect(granted).toBe(2);
  });
});

describe('work order', () => {
  it('a unit of work keeps its start across awaits and nested units; outside one, priority is now', async () => {
    const outside = workPriority();
    const seen = await asOneUnitOfWork(async () => {
      const first = workPriority();
      await new Promise((r) => setTimeout(r, 20));
      const later = workPriority();
      const nested = await asOneUnitOfWork(async () => workPriority());
      return { first, later, nested };
    });
    expect(seen.first).toBeGreaterThanOrEqual(outside);
    expect(seen.later).toBe(seen.first);
    expect(seen.nested).toBe(seen.first);
    expect(workPriority()).toBeGreaterThan(seen.first);
  });
});
