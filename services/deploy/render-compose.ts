#!/usr/bin/env node
// `node dist/services/deploy/render-compose.js [--check] [SUBJECTS_FILE]`: (re)writes
// docker-compose.yml beside subjects.yaml (the package's own by default). --check writes
// nothing and exits 1 when the file on disk differs from what subjects.yaml renders.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadRuntimeConfig } from '../../config/runtime.js';
import { loadSubjects } from '../../config/subjects.js';
import { renderCompose } from './compose.js';
import { composeFileFor, writeComposeFile } from './compose-file.js';

function main(): number {
  const { values, positionals } = parseArgs({ options: { check: { type: 'boolean' } }, allowPositionals: true });
  const subjectsFile = positionals[0] ? resolve(positionals[0]) : loadRuntimeConfig().subjectsFile;
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
