// How a server's start opens the embedded brain (db/open.ts), in-process on a real data
// directory: PGlite starts only once the server's listening lets it (OpenOptions.startAfter),
// after the data directory was checked; the page cache is sized from the sizes the close check
// has just read (the snapshot's relation files), and only without a snapshot by walking base/.
import { readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RuntimeConfig } from '../../config/runtime.js';
import { SHARED_BUFFERS_MB } from '../../db/embedded.js';
import { openAdmin } from '../../db/open.js';
import { SNAPSHOT_FILE } from '../../db/relation-files.js';
import { ListenGate } from '../../services/runtime/listen-gate.js';
import { newEmbeddedHome, type EmbeddedHome } from '../support/embedded-home.js';

describe('[pglite] opening the embedded brain for a server', () => {
  let brain: EmbeddedHome | undefined;
  let rt: RuntimeConfig;

  beforeAll(async () => {
    // A new brain, closed cleanly (the close writes the snapshot of its files).
    brain = await newEmbeddedHome('brain-open-start-');
    rt = brain.rt;
  }, 180_000);
  afterAll(() => brain?.remove());

  const sharedBuffersMb = async (admin: Awaited<ReturnType<typeof openAdmin>>) => {
    const [row] = await admin.session.query<{ mb: string }>(`SELECT setting::bigint * 8 / 1024 AS mb FROM pg_settings WHERE name = 'shared_buffers'`);
    return Number(row?.mb);
  };

  it('checks the data directory at once and starts PGlite only once the gate opens', async () => {
    const marks: string[] = [];
    const gate = new ListenGate();
    const opening = openAdmin(rt, { mark: (m) => marks.push(m), startAfter: gate.opened });
    // Longer than PGlite's open of this small brain takes, so an open that ignored the gate would be done first.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    marks.push('gate opened');
    gate.open();
    const admin = await opening;
    try {
      expect(marks.slice(0, 3)).toEqual(['data directory checked', 'gate opened', 'PGlite opened']);
      const [row] = await admin.session.query<{ one: number }>('SELECT 1 AS one');
      expect(row?.one).toBe(1);
    } finally {
      await admin.close();
    }
  }, 60_000);

  it('a damaged data directory is refused before the gate opens', async () => {
    const snapshot = join(rt.dataDir, SNAPSHOT_FILE);
    const original = readFileSync(snapshot, 'utf8');
    const files = JSON.parse(original) as { files: Record<string, { bytes: number }> };
    const [path, file] = Object.entries(files.files).find(([, f]) => f.bytes > 0)!;
    // As if the file had shrunk since the close: the snapshot says it was a page longer.
    writeFileSync(snapshot, JSON.stringify({ ...files, files: { ...files.files, [path]: { ...file, bytes: file.bytes + 8192 } } }));
    try {
      // The gate never opens: the refusal must not wait for it.
      await expect(openAdmin(rt, { startAfter: new ListenGate().opened })).rejects.toThrow(/is damaged: .* when the brain last closed/);
    } finally {
      writeFileSync(snapshot, original);
    }
  }, 60_000);

  it('sizes the page cache from the relation files the close check read, not from everything under base/', async () => {
    // A file in base/ that is no relation (sparse: no disk used). Walking base/ would count it: 256 MB -> a 128 MB cache.
    const stray = join(rt.dataDir, 'base', 'stray-file');
    writeFileSync(stray, '');
    truncateSync(stray, 256 * 2 ** 20);
    try {
      const admin = await openAdmin(rt);
      try {
        expect(await sharedBuffersMb(admin)).toBe(SHARED_BUFFERS_MB.min);
      } finally {
        await admin.close();
      }
      // Without a snapshot (after a crash) the walk of base/ is all there is, and it counts the stray file.
      rmSync(join(rt.dataDir, SNAPSHOT_FILE));
      const walked = await openAdmin(rt);
      try {
        expect(await sharedBuffersMb(walked)).toBeGreaterThanOrEqual(128);
      } finally {
        await walked.close();
      }
    } finally {
      rmSync(stray, { force: true });
    }
  }, 120_000);
});
