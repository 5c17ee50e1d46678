// The gate PGlite's start waits behind (services/runtime/listen-gate.ts): it opens once the
// listening servers have had no request for a moment, or after a cap however busy they are, or
// at once when a start gives up; a request on any of the servers puts the quiet moment back.
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ListenGate, LISTEN_QUIET_MS, LISTEN_WAIT_MAX_MS } from '../../services/runtime/listen-gate.js';

describe('the listen gate', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const watch = (gate: ListenGate) => {
    const state = { open: false };
    void gate.opened.then(() => (state.open = true));
    return state;
  };
  /** Lets the gate's promise callbacks run. */
  const settle = () => vi.advanceTimersByTimeAsync(0);

  it('opens once the servers have been quiet, each request putting that moment back', async () => {
    const [a, b] = [new EventEmitter(), new EventEmitter()];
    const gate = new ListenGate();
    const state = watch(gate);
    gate.openWhenQuiet([a, b], 50, 300);
    await vi.advanceTimersByTimeAsync(40);
    a.emit('request');
    await vi.advanceTimersByTimeAsync(40);
    b.emit('request');
    await vi.advanceTimersByTimeAsync(40);
    expect(state.open).toBe(false);
    await vi.advanceTimersByTimeAsync(15);
    expect(state.open).toBe(true);
    // Once open it listens no more.
    expect(a.listenerCount('request') + b.listenerCount('request')).toBe(0);
  });

  it('opens at the cap even while requests keep coming', async () => {
    const server = new EventEmitter();
    const gate = new ListenGate();
    const state = watch(gate);
    gate.openWhenQuiet([server], LISTEN_QUIET_MS, LISTEN_WAIT_MAX_MS);
    for (let t = 0; t < LISTEN_WAIT_MAX_MS - 20; t += 20) {
      server.emit('request');
      await vi.advanceTimersByTimeAsync(20);
    }
    expect(state.open).toBe(false);
    await vi.advanceTimersByTimeAsync(20);
    expect(state.open).toBe(true);
  });

  it('open() opens at once and stops the timers; opening twice is harmless', async () => {
    const server = new EventEmitter();
    const gate = new ListenGate();
    const state = watch(gate);
    gate.openWhenQuiet([server]);
    gate.open();
    gate.open();
    await settle();
    expect(state.open).toBe(true);
    expect(server.listenerCount('request')).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});
