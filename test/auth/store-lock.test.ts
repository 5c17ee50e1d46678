// The owner's store is written by several processes (the servers of `brain up`, `brain auth`):
// each read-modify-write holds the lock file, so concurrent writers lose nothing, and the file
// is replaced whole (a reader never sees half of it).
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../config/package.js';
import { AuthStore } from '../../services/auth/store.js';

const STORE_JS = pathToFileURL(join(PACKAGE_ROOT, 'dist/services/auth/store.js')).href;

function writer(dir: string, name: string, n: number): Promise<number | null> {
  const script = `
    const { AuthStore } = await import(${JSON.stringify(STORE_JS)});
    const store = new AuthStore(${JSON.stringify(dir)});
    for (let i = 0; i < ${n}; i++) {
      store.update((s) => { s.clients['${name}-' + i] = { id: '${name}-' + i, name: 'c', redirectUris: [], createdAt: Date.now() }; s.pending['${name}-' + i] = { id: '${name}-' + i, clientId: '${name}-' + i, subject: 'homelab', resource: 'r', scope: 'brain:read', redirectUri: 'x', codeChallenge: 'c', createdAt: Date.now(), expiresAt: Date.now() + 600000 }; });
      store.read();
    }`;
  return new Promise((resolve) => spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'inherit' }).on('exit', resolve));
}

describe('the OAuth store under concurrent writers', () => {
  const dir = mkdtempSync(join(tmpdir(), 'brain-oauth-lock-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('four processes writing at once lose no update', async () => {
    const codes = await Promise.all(['a', 'b', 'c', 'd'].map((name) => writer(dir, name, 25)));
    expect(codes).toEqual([0, 0, 0, 0]);
    const state = new AuthStore(dir).read();
    // 100 clients (at most 100 never-approved ones are kept); the requests waiting are capped at 20.
    expect(Object.keys(state.clients).length).toBe(100);
    expect(Object.keys(state.pending).length).toBe(20);
    expect(readdirSync(dir).filter((f) => f.endsWith('.lock') || f.endsWith('.tmp'))).toEqual([]);
  });
});
