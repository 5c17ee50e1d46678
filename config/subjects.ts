// The subjects file (subjects.yaml): which subjects exist, their ports, the role prefix.
// Loaded once, validated with zod, frozen. Every error names the file and the field.
import { readFileSync, writeFileSync, renameSync } from 'node:fs';
import { parseDocument } from 'yaml';
import { z } from 'zod';
import { ConfigError } from './errors.js';
import { parseYamlConfig, readConfigFile } from './yaml-file.js';

export const PERSONAL = 'personal';

/** A subject name becomes a schema and part of a role name, so it is kept to a safe, boring shape. */
export const SUBJECT_NAME = /^[a-z][a-z0-9_]{0,39}$/;
const RESERVED = new Set(['public', 'brain', 'brain_ext', 'brain_private', 'pg_catalog', 'information_schema']);

export const subjectName = z
  .string()
  .regex(SUBJECT_NAME, 'a subject name is lowercase letters, digits and "_", starting with a letter, at most 40 characters')
  .refine((n) => !RESERVED.has(n) && !n.startsWith('pg_'), 'this name is reserved by Postgres or claude-brain; choose another');

const fileSchema = z.object({
  role_prefix: z
    .string()
    .regex(/^[a-z][a-z0-9_]{0,14}$/, 'role_prefix is lowercase letters, digits and "_", at most 15 characters')
    .default('brain_'),
  subjects: z.record(subjectName, z.object({ port: z.number().int().min(1024).max(65535) }).strict()),
}).strict();

export interface Subject {
  readonly name: string;
  readonly port: number;
  /** The login role this subject's server connects as. */
  readonly role: string;
  readonly isPersonal: boolean;
}

export interface SubjectsConfig {
  readonly file: string;
  readonly rolePrefix: string;
  /** The NOLOGIN role that owns every object; app roles own nothing. */
  readonly ownerRole: string;
  /** The read-only role for humans with psql and dashboards. */
  readonly auditRole: string;
  readonly subjects: readonly Subject[];
}

export { ConfigError } from './errors.js';

export function parseSubjects(text: string, file: string): SubjectsConfig {
  const data = parseYamlConfig(text, file, fileSchema);
  const { role_prefix: rolePrefix, subjects } = data;
  if (!(PERSONAL in subjects)) throw new ConfigError(`${file}: subjects: the shared subject "personal" must be present`);
  const ports = new Map<number, string>();
  const list: Subject[] = [];
  for (const [name, { port }] of Object.entries(subjects)) {
    const clash = ports.get(port);
    if (clash) throw new ConfigError(`${file}: subjects.${name}.port: ${port} is already used by "${clash}"; give each subject its own port`);
    ports.set(port, name);
    list.push(Object.freeze({ name, port, role: rolePrefix + name, isPersonal: name === PERSONAL }));
  }
  return Object.freeze({
    file,
    rolePrefix,
    ownerRole: `${rolePrefix}owner`,
    auditRole: `${rolePrefix}audit`,
    subjects: Object.freeze(list),
  });
}

export function loadSubjects(file: string): SubjectsConfig {
  const text = readConfigFile(file, 'subjects file');
  const config = parseSubjects(text, file);
  for (const reserved of [config.ownerRole, config.auditRole]) {
    if (config.subjects.some((s) => s.role === reserved)) {
      throw new ConfigError(`${file}: a subject may not be named "${reserved.slice(config.rolePrefix.length)}"; that role name is reserved`);
    }
  }
  return config;
}

export function findSubject(config: SubjectsConfig, name: string): Subject {
  const subject = config.subjects.find((s) => s.name === name);
  if (!subject) {
    throw new ConfigError(`unknown subject "${name}"; the subjects in ${config.file} are: ${config.subjects.map((s) => s.name).join(', ')}`);
  }
  return subject;
}

/** Adds a subject to the file, keeping its comments. Returns the new config. */
export function addSubjectToFile(file: string, name: string, port?: number): SubjectsConfig {
  const config = loadSubjects(file);
  subjectName.parse(name);
  if (config.subjects.some((s) => s.name === name)) return config;
  const used = new Set(config.subjects.map((s) => s.port));
  const chosen = port ?? Math.max(...used) + 1;
  if (used.has(chosen)) throw new ConfigError(`port ${chosen} is already used by another subject`);
  const doc = parseDocument(readFileSync(file, 'utf8'));
  doc.setIn(['subjects', name], doc.createNode({ port: chosen }));
  writeAtomically(file, doc.toString());
  return loadSubjects(file);
}

export function removeSubjectFromFile(file: string, name: string): SubjectsConfig {
  const doc = parseDocument(readFileSync(file, 'utf8'));
  doc.deleteIn(['subjects', name]);
  writeAtomically(file, doc.toString());
  return loadSubjects(file);
}

function writeAtomically(file: string, text: string): void {
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}
