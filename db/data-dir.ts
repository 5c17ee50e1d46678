// The embedded brain's data directory must be a complete brain of its own, or it is refused:
// never silently replaced by a fresh, empty one. PGlite runs initdb in any folder without a
// PG_VERSION file, so a lost file, an unmounted volume or a wrong BRAIN_HOME would otherwise
// start an empty brain that looks healthy (and orphan the old files beside it).
//
// The marker, claude-brain.json, is written once the data directory holds a bootstrapped
// brain. A folder is opened only with the marker, PG_VERSION and a whole global/pg_control;
// a new brain is made only in an absent or empty folder, and then only when no secrets
// exist beside it, or when asked to (`brain init`, `--init`).
import { randomUUID } from 'node:crypto';
import { closeSync, fsyncSync, openSync, readdirSync, readFileSync, renameSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';

export const MARKER_FILE = 'claude-brain.json';
/** The layout of the data directory this version reads and writes. */
export const DATA_FORMAT = 1;
/** PG_CONTROL_FILE_SIZE: pg_control is always one 8 kB block. */
const PG_CONTROL_BYTES = 8192;
/** Entries that do not make a folder a brain (a fresh file system, macOS Finder). */
const IGNORED = new Set(['lost+found', '.DS_Store']);

/** The data directory is not one this brain may open; nothing in it was changed. */
export class DataDirError extends Error {
  override readonly name = 'DataDirError';
}

export interface DataDirMarker {
  readonly brainId: string;
  readonly createdAt: string;
  readonly format: number;
  /** Set when a data directory of an older version, without the marker, was adopted. */
  readonly adoptedAt?: string;
}

export type DataDirPlan =
  /** Absent or empty: a new brain; the marker is written once its bootstrap succeeds. */
  | { readonly action: 'create' }
  /** A marked, complete brain. */
  | { readonly action: 'open'; readonly marker: DataDirMarker }
  /** A complete PGlite layout without the marker (older versions): adopted if it holds the brain's schema. */
  | { readonly action: 'adopt' };

export function recovery(dataDir: string): string {
  return (
    'To recover, restore a backup: `brain restore FILE` with BRAIN_HOME set to a new, empty folder; ' +
    `or move ${dataDir} aside and run \`brain init\` to start a new, empty brain`
  );
}

function entriesOf(dir: string): string[] | undefined {
  try {
    return readdirSync(dir).filter((e) => !IGNORED.has(e));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function readMarker(dataDir: string): DataDirMarker | 'absent' | 'unreadable' {
  let text: string;
  try {
    text = readFileSync(join(dataDir, MARKER_FILE), 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'absent' : 'unreadable';
  }
  try {
    const m = JSON.parse(text) as Partial<DataDirMarker>;
    if (typeof m.brainId === 'string' && typeof m.format === 'number' && typeof m.createdAt === 'string') return m as DataDirMarker;
  } catch {
    /* below */
  }
  return 'unreadable';
}

/**
 * Decides what opening `dataDir` may do, before PGlite touches it, or throws a DataDirError
 * that names the folder, what is wrong and how to recover. `init`: the user asked for a new
 * brain (`brain init`, `--init`), so secrets beside an absent data directory do not stop it.
 */
export function planDataDir(dataDir: string, secretsDir: string, init: boolean): DataDirPlan {
  const entries = entriesOf(dataDir);
  if (!entries || entries.length === 0) {
    const secrets = entriesOf(secretsDir);
    if (!init && secrets && secrets.length > 0) {
      throw new DataDirError(
        `${dataDir} is missing or empty but ${secretsDir} exists: this looks like a brain whose data is not mounted. ` +
          'Mount or restore it, or run with --init (`brain up --init`, `npm start -- --init`, or `brain init`) to start a new, empty brain.',
      );
    }
    return { action: 'create' };
  }
  const problems: string[] = [];
  const marker = readMarker(dataDir);
  if (marker === 'unreadable') problems.push(`${MARKER_FILE} is unreadable`);
  let pgVersion = true;
  try {
    statSync(join(dataDir, 'PG_VERSION'));
  } catch {
    pgVersion = false;
    problems.push('PG_VERSION is missing');
  }
  try {
    const size = statSync(join(dataDir, 'global', 'pg_control')).size;
    if (size !== PG_CONTROL_BYTES) problems.push(`global/pg_control is damaged (${size} bytes, not ${PG_CONTROL_BYTES})`);
  } catch {
    problems.push('global/pg_control is missing');
  }
  if (problems.length > 0 || marker === 'unreadable') {
    const what = marker === 'absent' && !pgVersion ? `it is not a claude-brain data directory (no ${MARKER_FILE}, ${problems.join(', ')})` : `it is incomplete: ${problems.join(', ')}`;
    throw new DataDirError(`refusing to open the embedded brain in ${dataDir}: ${what}. Nothing in it was changed. ${recovery(dataDir)}.`);
  }
  if (marker === 'absent') return { action: 'adopt' };
  if (marker.format > DATA_FORMAT) {
    throw new DataDirError(`${join(dataDir, MARKER_FILE)} says format ${marker.format}, written by a newer claude-brain (this one reads format ${DATA_FORMAT}): upgrade claude-brain to open it.`);
  }
  return { action: 'open', marker };
}

/** Writes the marker (atomically: a temporary file, flushed, then renamed over). */
export function writeMarker(dataDir: string, marker: DataDirMarker): void {
  writeFileAtomically(join(dataDir, MARKER_FILE), `${JSON.stringify(marker, null, 2)}\n`);
}

/** Written whole or not at all: a temporary file, synced, then renamed over the old one. */
export function writeFileAtomically(file: string, text: string): void {
  const tmp = `${file}.tmp-${process.pid}`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}

/** A new brain's marker; an adopted one dates from its PG_VERSION, when PGlite made it. */
export function newMarker(dataDir: string, adopted: boolean): DataDirMarker {
  const now = new Date().toISOString();
  if (!adopted) return { brainId: randomUUID(), createdAt: now, format: DATA_FORMAT };
  return { brainId: randomUUID(), createdAt: statSync(join(dataDir, 'PG_VERSION')).mtime.toISOString(), format: DATA_FORMAT, adoptedAt: now };
}
