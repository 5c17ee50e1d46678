#!/usr/bin/env node
// `node dist/services/deploy/render-compose.js [--check] [--dir DIR | SUBJECTS_FILE]`: (re)writes
// docker-compose.yml beside subjects.yaml (the package's own by default). --dir DIR reads
// DIR/subjects.yaml and writes DIR/docker-compose.yml: brain-up.sh runs it that way inside the
// image, with the checkout mounted as DIR, so a host without Node can regenerate the file.
// --check writes nothing and exits 1 when the file on disk differs from what subjects.yaml renders.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadRuntimeConfig } from '../../config/runtime.js';
import { loadSubjects } from '../../config/subjects.js';
import { renderCompose } from './compose.js';
import { composeFileFor, writeComposeFile } from './compose-file.js';

function main(): number {
  const { values, positionals } = parseArgs({ options: { check: { type: 'boolean' }, dir: { type: 'string' } }, allowPositionals: true });
  if (values.dir !== undefined && positionals.length) throw new Error('give either --dir DIR or a subjects file, not both');
  const subjectsFile =
    values.dir !== undefined ? join(resolve(values.dir), 'subjects.yaml') : positionals[0] ? resolve(positionals[0]) : loadRuntimeConfig().subjectsFile;
  const target = composeFileFor(subjectsFile);
  if (values.check) {
    const current = existsSync(target) ? readFileSync(target, 'utf8') : '';
    if (current === renderCompose(loadSubjects(subjectsFile))) return 0;
    process.stderr.write(`${target} is out of date with ${subjectsFile}; run node dist/services/deploy/render-compose.js\n`);
    return 1;
  }
  process.stdout.write(`wrote ${writeComposeFile(subjectsFile)}\n`);
  return 0;
}

try {
  process.exitCode = main();
} catch (error) {
  process.stderr.write(`render-compose: ${(error as Error).message}\n`);
  process.exitCode = 2;
}
