import { z } from 'zod';
import { archiveTopic, BrainError, mergeTopics, type ArchiveResult, type MergeResult } from '../../knowledge/index.js';
import { ok } from '../result.js';
import { reason, slug, subjectField } from './fields.js';
import { defineTool, DESTRUCTIVE } from './types.js';

// One tool for taking a card out of the brain, because the three share their subject and
// their consequences (a card hidden everywhere, restorable) and every tool definition costs
// context in every session: archive, unarchive, and merge (archive into another card).

function archiveAnswer(r: ArchiveResult): string {
  const name = `${r.subject}:${r.slug}`;
  if (!r.archived) {
    if (!r.changed) return `${name} is not archived; nothing changed.`;
    return `Unarchived ${name} (now v${r.version})${r.mergedInto ? `; it had been merged into ${r.subject}:${r.mergedInto}, which keeps what the merge moved to it` : ''}.`;
  }
  if (!r.changed) return `${name} was already archived${r.mergedInto ? ` (merged into ${r.subject}:${r.mergedInto})` : ''}; nothing changed.`;
  const lines = [`Archived ${name} (now v${r.version}): hidden from search, list and get, kept in history. Undo: archive with slug "${r.slug}", unarchive: true.`];
  if (r.linkedFrom) lines.push(`Note: ${r.linkedFrom} link(s) in ${r.subject} point at it; lint lists them.`);
  return lines.join('\n');
}

function mergeAnswer(r: MergeResult): string {
  const moved = [
    `body ${r.body}`,
    `${r.tagsAdded} tag(s) added`,
    `${r.linksMoved} link(s) and ${r.backlinksMoved} backlink(s) moved${r.linksDropped ? ` (${r.linksDropped} duplicate or self link(s) dropped)` : ''}`,
    `${r.episodesMoved} episode(s)`,
    `${r.sourcesMoved} source(s)`,
    ...(r.rawMoved ? [`${r.rawMoved} raw data record(s)`] : []),
  ];
  const lines = [
    `Merged ${r.subject}:${r.from} into ${r.subject}:${r.into} (now v${r.intoVersion}): ${moved.join(', ')}.`,
    `${r.subject}:${r.from} is archived (v${r.fromVersion}) and answers "merged into ${r.into}"; both histories are kept.`,
  ];
  if (r.rawKept.length) lines.push(`Note: raw data ${r.rawKept.join(', ')} stayed on ${r.from} (${r.into} has its own record of that source).`);
  return lines.join('\n');
}

export const archiveTool = defineTool({
  name: 'archive',
  description:
    'Archive a card: hidden from search, list and get, kept in history; unarchive: true undoes. into: merge it into that card (body appended, or body; tags, links, episodes, sources move).',
  inputSchema: (deps) =>
    z.object({
      slug,
      into: z.string().optional(),
      body: z.string().optional(),
      unarchive: z.boolean().optional(),
      subject: subjectField(deps),
      reason,
    }),
  annotations: DESTRUCTIVE,
  async run(a, { ctx }) {
    if (a.into !== undefined && a.unarchive) throw new BrainError('invalid_input', 'archive: into (merge) and unarchive do not go together', 'Pass into to merge, or unarchive: true to bring a card back.', { details: { field: 'unarchive' } });
    if (a.body !== undefined && a.into === undefined) throw new BrainError('invalid_input', 'archive: body is the survivor\'s body in a merge; it needs into', 'Pass into (the card to merge into), or leave body out.', { details: { field: 'body' } });
    if (a.into !== undefined) {
      return ok(mergeAnswer(await mergeTopics(ctx, { subject: a.subject, from: a.slug, into: a.into, body: a.body, reason: a.reason })));
    }
    return ok(archiveAnswer(await archiveTopic(ctx, { subject: a.subject, slug: a.slug, unarchive: a.unarchive ?? false, reason: a.reason })));
  },
});
