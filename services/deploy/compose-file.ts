// Writing docker-compose.yml beside the subjects.yaml it is rendered from.
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadSubjects } from '../../config/subjects.js';
import { renderCompose } from './compose.js';

export const COMPOSE_FILE = 'docker-compose.yml';

export function composeFileFor(subjectsFile: string): string {
  return join(dirname(subjectsFile), COMPOSE_FILE);
}

/** Renders the compose file for a subjects file and writes it atomically. Returns its path. */
export function writeComposeFile(subjectsFile: string): string {
  const file = composeFileFor(subjectsFile);
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, renderCompose(loadSubjects(subjectsFile)));
  renameSync(tmp, file);
  return file;
}

/**
 * After `brain subjects add/remove`: regenerates the compose file only where one already sits
 * beside subjects.yaml (the repo checkout), so a scratch config dir never grows one.
 */
export function refreshComposeFile(subjectsFile: string): string | undefined {
  return existsSync(composeFileFor(subjectsFile)) ? writeComposeFile(subjectsFile) : undefined;
}
