import { addSource, getTopic } from '../../services/knowledge/index.js';
import { sourceLine } from '../../services/mcp/format.js';
import { CliError, parse, printJson, readTextFile } from '../output.js';
import { EXIT, SUBJECT_OPTIONS, SUBJECT_USAGE, withSubject } from '../subject.js';
import type { Command } from './index.js';

const usage = `brain source SLUG [--document ID | --file F [--title T] | --uri URI] [--locator L] [--quote Q] ${SUBJECT_USAGE} [--reason R]   (no source: list the card's sources)`;

export const source: Command = {
  usage,
  summary:
    "Cite where a card came from: a stored document (--document ID from ingest, or --file to store one now), or a --uri, with --locator (where in it) and --quote. Without one, list the card's sources.",
  async run(args) {
    const { values, positionals } = parse(
      args,
      {
        ...SUBJECT_OPTIONS,
        document: { type: 'string' },
        file: { type: 'string' },
        title: { type: 'string' },
        uri: { type: 'string' },
        locator: { type: 'string' },
        quote: { type: 'string' },
        reason: { type: 'string' },
      },
      usage,
    );
    const [slug, extra] = positionals;
    if (!slug || extra) throw new CliError(`one SLUG is needed\nusage: ${usage}`);
    const documentId = values.document === undefined ? undefined : Number(values.document);
    if (documentId !== undefined && !(Number.isInteger(documentId) && documentId > 0)) throw new CliError('--document is a document id (a positive whole number)');
    if (documentId !== undefined && values.file) throw new CliError('pass --document or --file, not both');
    const content = values.file ? readTextFile(values.file) : undefined;
    const citing = documentId !== undefined || content !== undefined || values.uri !== undefined;
    if (!citing && (values.locator || values.quote || values.title)) throw new CliError(`--locator, --quote and --title go with a source (--document, --file or --uri)\nusage: ${usage}`);
    return withSubject(values, async (ctx) => {
      if (!citing) {
        const card = await getTopic(ctx, { slug, include: ['sources'] });
        if (values.json) printJson(card.sources ?? []);
        else process.stdout.write(card.sources?.length ? `${card.sources.map(sourceLine).join('\n')}\n` : `${card.subject}:${card.slug} cites no source.\n`);
        return EXIT.ok;
      }
      const s = await addSource(ctx, { slug, documentId, content, title: values.title ?? '', uri: values.uri, locator: values.locator ?? '', quote: values.quote ?? '', reason: values.reason });
      if (values.json) printJson(s);
      else {
        const what = s.documentId !== null ? `document ${s.documentId}${s.documentCreated ? ' (stored now)' : ''}` : String(s.uri);
        process.stdout.write(`${s.created ? 'Cited' : 'Already cited'} ${what} as a source of ${s.subject}:${slug}.\n`);
      }
      return EXIT.ok;
    });
  },
};
