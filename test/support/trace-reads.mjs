// Preloaded with `node --import` by test/deploy/runtime-paths.test.ts: records every path the
// process touches (fs reads, stats, directory listings, opens) and every module it resolves,
// one absolute path per line, into the file named by BRAIN_TRACE_FILE. Plain JavaScript, so
// it runs before anything is compiled and inside any child the test starts.
import { appendFileSync } from 'node:fs';
import fs from 'node:fs';
import { register, syncBuiltinESMExports } from 'node:module';
import { resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';

const out = process.env.BRAIN_TRACE_FILE;
if (!out) throw new Error('trace-reads.mjs: set BRAIN_TRACE_FILE');
const write = appendFileSync; // kept before patching, so logging never traces itself

function record(target) {
  let path;
  if (typeof target === 'string') path = target;
  else if (target instanceof URL) path = target.protocol === 'file:' ? fileURLToPath(target) : undefined;
  else if (Buffer.isBuffer(target)) path = target.toString();
  if (path === undefined || path === '') return; // a file descriptor, or nothing to name
  write(out, `${resolvePath(path)}\n`);
}

const SYNC = ['readFileSync', 'readdirSync', 'openSync', 'existsSync', 'statSync', 'lstatSync', 'accessSync', 'opendirSync', 'realpathSync'];
const CALLBACK = ['readFile', 'readdir', 'open', 'stat', 'lstat', 'access', 'opendir', 'createReadStream'];
const PROMISES = ['readFile', 'readdir', 'open', 'stat', 'lstat', 'access', 'opendir'];

function wrap(holder, name) {
  const original = holder[name];
  if (typeof original !== 'function') return;
  const wrapped = function (target, ...rest) {
    record(target);
    return original.call(this, target, ...rest);
  };
  Object.assign(wrapped, original); // keeps realpathSync.native and friends
  holder[name] = wrapped;
}

for (const name of [...SYNC, ...CALLBACK]) wrap(fs, name);
for (const name of PROMISES) wrap(fs.promises, name);
// Named imports (`import { readFileSync } from 'node:fs'`) see the patched functions only after this.
syncBuiltinESMExports();

// Modules: every resolved file URL, from the loader thread.
register('./trace-hooks.mjs', import.meta.url, { data: { out } });
