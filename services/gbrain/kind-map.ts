// The directory ↔ kind map of an import or export: GBrain's own map (kinds.ts), extended
// or overridden by a small YAML or JSON file { directory: kind }, and checked against
// the kind vocabulary before anything is written.
import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import type { Kind } from '../../config/kinds.js';
import { BrainError } from '../knowledge/errors.js';
import { DEFAULT_KIND_MAP, type KindMap } from './kinds.js';

/** Reads a kind-map file (YAML or JSON, both parse as YAML) and lays it over the default map. */
export function loadKindMap(file: string, base: KindMap = DEFAULT_KIND_MAP): KindMap {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (cause) {
    throw new BrainError('invalid_input', `${file}: cannot read the kind map (${(cause as NodeJS.ErrnoException).code ?? cause})`, 'Pass a readable YAML or JSON file mapping directories to kinds, e.g. "notes: concept".');
  }
  const doc = parseDocument(text, { uniqueKeys: true });
  const value: unknown = doc.errors.length ? undefined : doc.toJS();
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new BrainError('invalid_input', `${file}: a kind map is a mapping of directory to kind`, 'Write it as YAML ("people: person") or JSON ({"people": "person"}).');
  }
  const map: Record<string, string> = { ...base };
  for (const [dir, kind] of Object.entries(value as Record<string, unknown>)) {
    if (typeof kind !== 'string' || kind.trim() === '') {
      throw new BrainError('invalid_input', `${file}: "${dir}" must map to a kind name`, 'Each entry is directory: kind, e.g. "notes: concept".');
    }
    map[dir.replace(/\/+$/, '')] = kind.trim();
  }
  return Object.freeze(map);
}

/** Refuses a map naming kinds that are not topic kinds, listing the valid ones. */
export function checkKindMap(map: KindMap, kinds: readonly Kind[], rootKind: string): void {
  const valid = kinds.filter((k) => k.class === 'topic').map((k) => k.name);
  for (const [dir, kind] of [...Object.entries(map), ['(root)', rootKind] as const]) {
    if (!valid.includes(kind)) {
      throw new BrainError('unknown_kind', `the kind map sends ${dir}/ to "${kind}", which is not a topic kind`, `Use one of: ${valid.join(', ')}. New kinds are added to kinds.yaml by a person.`, {
        details: { validKinds: valid },
      });
    }
  }
}

/**
 * The directory a kind's new pages go to: the first directory the map sends to that kind
 * (person → people, source → sources), else the kind's own name.
 */
export function directoryForKind(kind: string, map: KindMap = DEFAULT_KIND_MAP): string {
  return Object.entries(map).find(([, k]) => k === kind)?.[0] ?? kind;
}
