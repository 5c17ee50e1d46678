// An embedded brain that sleeps while idle (db/embedded.ts): PGlite closed after a time with no
// request, its memory given back, and opened again by the next request, which finds everything
// as it was; background work (the embedding worker's polls, maintenance) neither wakes it nor
// keeps it awake; every sleep leaves what a clean close leaves (db/open.ts), so the data
// directory opens as cleanly closed even if the process dies while its brain sleeps.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRuntimeConfig, type RuntimeConfig } from '../../config/runtime.js';
import { findSubject, loadSubjects } from '../../config/subjects.js';
import { readBootstrapState } from '../../db/bootstrap-state.js';
import { BrainAsleepError, EmbeddedDatabase } from '../../db/embedded.js';
import { maintainEmbedded } from '../../db/embedded-maintenance.js';
import { openAdmin, runBootstrap, type AdminConnection } from '../../db/open.js';
import { SNAPSHOT_FILE } from '../../db/relation-files.js';
import { openEmbeddedSubjectDb, type SubjectDb } from '../../db/subject-db.js';
import { asBackgroundWork } from '../../db/work-order.js';
import type { Embedder } from '../../services/embeddings/embedder.js';
import { createContext, createTopic } from '../../services/knowledge/index.js';
import { countPending } from '../../services/search/pending.js';
import { startEmbedWorker } from '../../services/search/worker.js';
import { scratchConfigDir } from '../support/cli.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Unit vectors of 8 dimensions from the text, answered at once. */
const embedder: Embedder = {
  model: 'sleep-test-8',
  dimensions: 8,
  async embedDocuments(texts) {
    return texts.map((t) => {
      const v = Array.from({ length: 8 }, (_, i) => (t.charCodeAt(i % t.length) % 7) + 1);
      const n = Math.hypot(...v);
      return v.map((x) => x / n);
    });
  },
  async embedQuery(text) {
    return (await this.embedDocuments([text]))[0]!;
  },
  async health() {
    return { ok: true };
  },
};

it('an embedded server sleeps after BRAIN_EMBEDDED_IDLE_MINUTES (5 by default; off: never)', () => {
  expect(loadRuntimeConfig({}).embeddedIdleMinutes).toBe(5);
  expect(loadRuntimeConfig({ BRAIN_EMBEDDED_IDLE_MINUTES: '30' }).embeddedIdleMinutes).toBe(30);
  expect(loadRuntimeConfig({ BRAIN_EMBEDDED_IDLE_MINUTES: '0.5' }).embeddedIdleMinutes).toBe(0.5);
  expect(loadRuntimeConfig({ BRAIN_EMBEDDED_IDLE_MINUTES: 'off' }).embeddedIdleMinutes).toBeUndefined();
  for (const bad of ['0', 'never', '2000']) expect(() => loadRuntimeConfig({ BRAIN_EMBEDDED_IDLE_MINUTES: bad })).toThrow(/BRAIN_EMBEDDED_IDLE_MINUTES: must be minutes from 0.05 to 1440, or off/);
});

describe('[pglite] an embedded brain asleep while idle', () => {
  let home: string;
  let configDir: string;
  let rt: RuntimeConfig;
  let admin: AdminConnection;
  let embedded: EmbeddedDatabase;
  let homelab: SubjectDb;
  let closed = false;

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'brain-sleep-'));
    configDir = scratchConfigDir();
    rt = loadRuntimeConfig({ BRAIN_HOME: home, BRAIN_CONFIG_DIR: configDir, BRAIN_EMBEDDER: 'none' });
    admin = await openAdmin(rt, { init: true });
    await runBootstrap(rt, admin);
    embedded = admin.embedded!;
    homelab = openEmbeddedSubjectDb(embedded, findSubject(loadSubjects(rt.subjectsFile), 'homelab'));
  }, 180_000);

  afterAll(async () => {
    if (!closed) {
      await homelab?.close();
      await admin?.close();
    }
    rmSync(home, { recursive: true, force: true });
    rmSync(configDir, { recursive: true, force: true });
  });

  const titles = async () => (await sql<{ title: string }>`SELECT title FROM homelab.topics ORDER BY title`.execute(homelab.db)).rows.map((r) => r.title);

  it('sleeps only once nothing used it for the idle time, and not while the connection is held or waited for', async () => {
    await titles();
    expect(await embedded.sleepIfIdle(60_000)).toBe(false); // used just now
    const release = await embedded.acquire();
    const waiting = embedded.acquire();
    expect(await embedded.sleepIfIdle(0)).toBe(false); // held
    release();
    (await waiting)();
    expect(embedded.awake).toBe(true);
  });

  it('wakes for the next statement, which finds what was written before, through statements prepared again', async () => {
    const ctx = await createContext(homelab.subject, homelab.db);
    await createTopic(ctx, { slug: 'svc/before-sleep', kind: 'environment', title: 'Written before the sleep', body: 'Backups run nightly.' });
    expect(await titles()).toEqual(['Written before the sleep']);
    const generation = embedded.generation;
    const slept = embedded.sleeps.slept;
    expect(await embedded.sleepIfIdle(0)).toBe(true);
    expect(embedded.awake).toBe(false);
    expect(embedded.sleeps.slept).toBe(slept + 1);
    // Its memory given back: a full collection, and on glibc (Linux, this suite's machines) malloc_trim.
    expect(embedded.sleeps.lastGiveBack).toEqual({ collected: true, trimmed: process.platform === 'linux' });
    expect(() => embedded.pg).toThrow(BrainAsleepError);

    // The same statement text as before the sleep: its prepared statement belonged to the closed PGlite.
    expect(await titles()).toEqual(['Written before the sleep']);
    expect(embedded.awake).toBe(true);
    expect(embedded.generation).toBe(generation + 1);
    await createTopic(ctx, { slug: 'svc/after-sleep', kind: 'environment', title: 'Written after the sleep', body: 'Restores are tested monthly.' });
    expect(await titles()).toEqual(['Written after the sleep', 'Written before the sleep']);
  });

  it('leaves a clean close behind each sleep: the file snapshot and the catalog record, dropped again on waking', async () => {
    expect(existsSync(join(rt.dataDir, SNAPSHOT_FILE))).toBe(false); // awake: the files change
    expect(await embedded.sleepIfIdle(0)).toBe(true);
    expect(existsSync(join(rt.dataDir, SNAPSHOT_FILE))).toBe(true);
    expect(readBootstrapState(rt.dataDir)?.closed?.pgControl).toMatch(/^[0-9a-f]{64}$/);
    await titles();
    expect(existsSync(join(rt.dataDir, SNAPSHOT_FILE))).toBe(false);
  });

  it('background work neither wakes it (BrainAsleepError) nor keeps it awake, until it calls foreground()', async () => {
    expect(await embedded.sleepIfIdle(0)).toBe(true);
    await expect(asBackgroundWork(() => titles())).rejects.toBeInstanceOf(BrainAsleepError);
    expect(await embedded.runIfAwake(async () => 'ran')).toBeUndefined();
    expect(await maintainEmbedded(embedded, { firstPass: true })).toEqual([]);
    expect(await embedded.checkpointIfDue(0)).toBe(false);
    expect(embedded.awake).toBe(false);

    await titles(); // a request wakes it
    await sleep(30);
    await asBackgroundWork(() => titles()); // not a use: the 20 ms idle time still counts from the request
    expect(await embedded.sleepIfIdle(20)).toBe(true);

    await titles();
    await sleep(30);
    await asBackgroundWork(async (work) => {
      work.foreground(); // it found work: from here on its statements are uses
      await titles();
    });
    expect(await embedded.sleepIfIdle(20)).toBe(false);
  });

  it("the embedding worker's polls leave a sleeping brain asleep; cards written wake it and get embedded", async () => {
    const ctx = await createContext(homelab.subject, homelab.db);
    const m = { model: embedder.model, dims: embedder.dimensions };
    expect(await embedded.sleepIfIdle(0)).toBe(true);
    const worker = startEmbedWorker({ ctx, embedder, batchSize: 16, pollMs: 20 });
    try {
      await sleep(300); // about fifteen polls
      expect(embedded.awake).toBe(false);
      expect(worker.status().state).toBe('ok');
      const woke = embedded.sleeps.woke;
      await createTopic(ctx, { slug: 'svc/while-asleep', kind: 'environment', title: 'Written to a sleeping brain', body: 'The request woke it.' });
      expect(embedded.sleeps.woke).toBe(woke + 1);
      await worker.drain();
      expect(await countPending(ctx.db, 'homelab', m)).toBe(0);
    } finally {
      await worker.stop();
    }
  });

  it('sleeps by itself after the idle time, and a statement waiting for it wakes it', async () => {
    embedded.sleepWhenIdle(150, {}, 20);
    try {
      await titles();
      for (let i = 0; i < 100 && embedded.awake; i++) await sleep(20);
      expect(embedded.awake).toBe(false);
      expect(await titles()).toContain('Written to a sleeping brain');
    } finally {
      embedded.sleepWhenIdle(24 * 3_600_000); // effectively never, for what follows
    }
  });

  it('awake but idle, it gives memory back once per idle spell, never while used or asleep', async () => {
    await titles(); // a use, of the PGlite the last test woke
    expect(embedded.trimIfIdle(60_000)).toBe(false); // not idle long enough, even for a fresh PGlite
    await sleep(30);
    expect(embedded.trimIfIdle(10)).toBe(true);
    // On glibc (Linux, this suite's machines) malloc_trim runs, and the page cache PGlite zeroed
    // at its start (32 MB here) leaves the resident set; elsewhere there is nothing to call.
    const linux = process.platform === 'linux';
    expect(embedded.sleeps.lastIdleTrim?.collected).toBe(true); // settled: V8's heap collected too
    expect(embedded.sleeps.lastIdleTrim?.trimmed).toBe(linux);
    if (linux) expect(embedded.sleeps.lastIdleTrim?.zeroPagesDropped).toBeGreaterThan(16 * 2 ** 20);
    else expect(embedded.sleeps.lastIdleTrim?.zeroPagesDropped).toBeNull();
    expect(embedded.trimIfIdle(10)).toBe(false); // once per idle spell
    expect(embedded.awake).toBe(true);
    expect(await titles()).toContain('Written to a sleeping brain'); // what it holds is unchanged
    await sleep(30);
    expect(embedded.trimIfIdle(60_000)).toBe(false); // a PGlite trimmed already waits the full idle time
    expect(embedded.trimIfIdle(10)).toBe(true);
    expect(await embedded.sleepIfIdle(0)).toBe(true);
    await sleep(30);
    expect(embedded.trimIfIdle(10)).toBe(false); // asleep: the sleep gave everything back
    expect(await titles()).toContain('Written to a sleeping brain');
  });

  it('a PGlite just woken gives its untouched page cache back a second after it is left idle, with no call', async () => {
    embedded.sleepWhenIdle(24 * 3_600_000);
    expect(await embedded.sleepIfIdle(0)).toBe(true);
    const before = embedded.sleeps.lastIdleTrim;
    expect(await titles()).toContain('Written to a sleeping brain'); // wakes it
    await sleep(1_500);
    expect(embedded.sleeps.lastIdleTrim).not.toBe(before);
    if (process.platform === 'linux') expect(embedded.sleeps.lastIdleTrim?.zeroPagesDropped).toBeGreaterThan(16 * 2 ** 20);
    // The quick trim of a fresh PGlite leaves the collection to the settled trim of the same idle
    // spell (AWAKE_TRIM_AFTER_MS: 10 s in a server, 10 ms here), which runs once.
    expect(embedded.sleeps.lastIdleTrim?.collected).toBe(false);
    const quick = embedded.sleeps.lastIdleTrim;
    expect(embedded.trimIfIdle(10)).toBe(true);
    expect(embedded.sleeps.lastIdleTrim).not.toBe(quick);
    expect(embedded.sleeps.lastIdleTrim?.collected).toBe(true);
    if (process.platform === 'linux') {
      // The pages the quick trim handed back (most of the 32 MB page cache PGlite zeroed) are
      // not read again: reading one faults it in, most of a trim's time on a VM.
      const read = quick!.zeroPagesRead!;
      expect(read).toBeGreaterThan(8192);
      expect(embedded.sleeps.lastIdleTrim!.zeroPagesRead!).toBeLessThan(read / 2);
    }
    expect(embedded.trimIfIdle(10)).toBe(false);
    expect(await titles()).toContain('Written to a sleeping brain');
  });

  it('a brain closed while asleep opens again as cleanly closed: no damage found, the bootstrap skipped', async () => {
    expect(await embedded.sleepIfIdle(0)).toBe(true);
    await homelab.close();
    await admin.close();
    closed = true;
    const again = await openAdmin(rt);
    try {
      const run = await runBootstrap(rt, again, undefined, { skipIfCurrent: true });
      expect(run.skipped).toBe(true);
      const rows = await again.session.query<{ n: number }>('SELECT count(*)::int AS n FROM homelab.topics');
      expect(rows[0]?.n).toBe(3);
    } finally {
      await again.close();
    }
  });

  it('an in-memory brain (nothing to reopen) refuses to sleep', async () => {
    const memory = await EmbeddedDatabase.open();
    try {
      expect(() => memory.sleepWhenIdle(1_000)).toThrow(/in-memory/);
      expect(await memory.sleepIfIdle(0)).toBe(false);
    } finally {
      await memory.close();
    }
  });
});
