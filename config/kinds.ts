// kinds.yaml: the single vocabulary of kinds. Validated at start-up and synced into
// brain.kinds, where foreign keys make Postgres refuse anything else.
import { z } from 'zod';
import { ConfigError } from './errors.js';
import { parseYamlConfig, readConfigFile } from './yaml-file.js';

export type KindClass = 'topic' | 'episode';

export interface Kind {
  readonly name: string;
  readonly class: KindClass;
  readonly description: string;
}

const kindName = z.string().regex(/^[a-z][a-z0-9-]*$/, 'a kind is lowercase letters, digits and "-", starting with a letter');
const section = z.record(kindName, z.string().trim().min(1, 'each kind needs a one-line description').refine((d) => !d.includes('\n'), 'the description is one line'));
const fileSchema = z.object({ topic: section, episode: section }).strict();

export function parseKinds(text: string, file: string): readonly Kind[] {
  const data = parseYamlConfig(text, file, fileSchema);
  const kinds: Kind[] = [];
  for (const cls of ['topic', 'episode'] as const) {
    for (const [name, description] of Object.entries(data[cls])) {
      const other = kinds.find((k) => k.name === name);
      if (other) throw new ConfigError(`${file}: "${name}" is listed as both a topic and an episode kind; a kind is a thing or an event, never both`);
      kinds.push(Object.freeze({ name, class: cls, description }));
    }
  }
  return Object.freeze(kinds);
}

export function loadKinds(file: string): readonly Kind[] {
  const text = readConfigFile(file, 'kinds file');
  return parseKinds(text, file);
}
