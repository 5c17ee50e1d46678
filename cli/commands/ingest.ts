import { basename, resolve } from 'node:path';
import { INGEST_TYPES, ingestFile } from '../../services/gbrain/ingest.js';
import { CliError, parse, printJson, readTextFile } from '../output.js';
import { EXIT, SUBJECT_OPTIONS, SUBJECT_USAGE, withSubject } from '../subject.js';
import type { Command } from './index.js';

const usage = `brain ingest FILE ${SUBJECT_USAGE} [--type ${INGEST_TYPES.join('|')}] [--title T] [--ref PATH_OR_URL] [--reason R]`;

export const ingest: Command = {
  usage,
  summary: 'Store a source document verbatim (the same bytes twice are stored once) with an ingest record; prints the document id.',
  async run(args) {
    const { values, positionals } = parse(args, { ...SUBJECT_OPTIONS, type: { type: 'string' }, title: { type: 'string' }, ref: { type: 'string' }, reason: { type: 'string' } }, usage);
    const [file, extra] = positionals;
    if (!file || extra) throw new CliError(`one FILE is needed\nusage: ${usage}`);
    const type = values.type ?? 'doc';
    if (!(INGEST_TYPES as readonly string[]).includes(type)) throw new CliError(`--type is one of ${INGEST_TYPES.join(', ')}`);
    const content = readTextFile(file);
    return withSubject(values, async (ctx) => {
      const r = await ingestFile(ctx, {
        content,
        type: type as (typeof INGEST_TYPES)[number],
        title: values.title ?? basename(file),
        ref: values.ref ?? resolve(file),
        mediaType: /\.(md|markdown)$/i.test(file) ? 'text/markdown' : 'text/plain',
        reason: values.reason,
      });
      if (values.json) printJson(r);
      else process.stdout.write(`${r.documentId}\n`);
      return EXIT.ok;
    }, { writes: true });
  },
};
