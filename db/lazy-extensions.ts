// PGlite's extensions (pgvector, pg_trgm) put in place without loading them. PGlite's own way
// unpacks an extension's bundle at every start and loads its library then, compiling and
// linking the WebAssembly before Postgres starts, although most commands never call it: a
// keyword search needs neither, and a one-shot command pays for both on every run. Here the
// bundle's files (the library, its control file and SQL scripts) are written into PGlite's
// file system before Postgres starts, and Postgres loads the library the first time it calls
// into it, as it does its own (plpgsql, the snowball stemmers). docs/performance.md, "Extensions
// loaded when first used", has the figures.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import type { Extension } from '@electric-sql/pglite';

export interface TarFile {
  /** The path inside the archive, without a leading "./". */
  name: string;
  data: Uint8Array;
}

const BLOCK = 512;

function field(header: Uint8Array, offset: number, length: number): string {
  const bytes = header.subarray(offset, offset + length);
  const end = bytes.indexOf(0);
  return Buffer.from(end < 0 ? bytes : bytes.subarray(0, end)).toString('utf8');
}

/** Entries that name or describe the entry after them (GNU long names, pax headers): not read here. */
const NAMING_ENTRIES = new Set(['L', 'K', 'x', 'g'].map((c) => c.charCodeAt(0)));

/**
 * The regular files of an uncompressed tar archive (POSIX ustar: a 512-byte header per entry,
 * the name in two parts, the size in octal); directories and links are skipped. Throws on an
 * archive cut short and on long-name or pax entries (the bundles PGlite ships have neither), so
 * a bundle that changed shape fails the open rather than landing files under wrong names.
 */
export function untar(archive: Uint8Array): TarFile[] {
  const files: TarFile[] = [];
  for (let at = 0; at + BLOCK <= archive.length; ) {
    const header = archive.subarray(at, at + BLOCK);
    if (header.every((b) => b === 0)) break; // the end-of-archive blocks
    const prefix = field(header, 345, 155);
    const name = (prefix ? `${prefix}/` : '') + field(header, 0, 100);
    const size = Number.parseInt(field(header, 124, 12).trim() || '0', 8);
    if (!Number.isSafeInteger(size) || size < 0) throw new Error(`tar entry ${JSON.stringify(name)} has no readable size`);
    const type = header[156]!;
    if (NAMING_ENTRIES.has(type)) throw new Error(`tar entry ${JSON.stringify(name)} is a long-name or pax entry (type ${String.fromCharCode(type)}), which this reader does not support`);
    at += BLOCK;
    if (at + size > archive.length) throw new Error(`tar entry ${JSON.stringify(name)} is cut short (${size} bytes declared, ${archive.length - at} left)`);
    // '0' (or NUL, from old tars) is a regular file.
    if (type === 0x30 || type === 0) files.push({ name: name.replace(/^\.\//, ''), data: archive.subarray(at, at + size) });
    at += Math.ceil(size / BLOCK) * BLOCK;
  }
  return files;
}

/** What this file needs of the Emscripten module PGlite runs Postgres in. */
interface PostgresFs {
  FS: { mkdirTree(path: string): void; writeFile(path: string, data: Uint8Array): void };
  WASM_PREFIX: string;
}

/**
 * `extension` with its bundle's files written into PGlite's file system before Postgres starts
 * (in a preRun step) and nothing loaded: no `bundlePath` is handed back, so PGlite neither unpacks
 * nor preloads it. Headers for building against the extension are left out.
 */
export function loadedWhenUsed(extension: Extension): Extension {
  return {
    name: extension.name,
    setup: async (pg, emscriptenOpts: { preRun?: ((mod: PostgresFs) => void)[] } & Record<string, unknown>, clientOnly) => {
      const result = await extension.setup(pg, emscriptenOpts, clientOnly);
      if (!result.bundlePath) return result;
      const { bundlePath, ...rest } = result;
      let files: TarFile[] | undefined = untar(gunzipSync(readFileSync(fileURLToPath(bundlePath)))).filter((f) => !f.name.startsWith('include/'));
      const opts = (rest.emscriptenOpts ?? emscriptenOpts) as typeof emscriptenOpts;
      const install = (mod: PostgresFs) => {
        for (const f of files ?? []) {
          const path = `${mod.WASM_PREFIX}/${f.name}`;
          mod.FS.mkdirTree(path.slice(0, path.lastIndexOf('/')));
          mod.FS.writeFile(path, f.data);
        }
        files = undefined; // copied into the file system; PGlite keeps this step as long as it runs
      };
      return { ...rest, emscriptenOpts: { ...opts, preRun: [...(opts.preRun ?? []), install] } };
    },
  };
}
