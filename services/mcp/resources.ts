// Resources: the index of slugs by kind, a card as markdown with its timeline, the kinds.
import { ResourceNotFoundError, ResourceTemplate, type McpServer } from '@modelcontextprotocol/server';
import { BrainError, getTopic, listTopics, readableSubjects, type BrainContext } from '../knowledge/index.js';
import { topicMarkdown } from './format.js';

const MD = 'text/markdown';

export function registerResources(server: McpServer, ctx: BrainContext): void {
  server.registerResource('index', 'brain://index', { title: 'Card index', description: 'Every card slug by subject and kind', mimeType: MD }, async (uri) => {
    const lines: string[] = [];
    for (const subject of readableSubjects(ctx)) {
      const rows = await listTopics(ctx, { subject, limit: 500 });
      lines.push(`# ${subject}`);
      const byKind = new Map<string, string[]>();
      for (const r of rows) byKind.set(r.kind, [...(byKind.get(r.kind) ?? []), r.slug]);
      for (const [kind, slugs] of [...byKind].sort()) lines.push(`## ${kind}`, ...slugs.sort().map((s) => `- ${s}`));
      if (rows.length === 500) lines.push('(first 500 cards; use the list tool for more)');
    }
    return { contents: [{ uri: uri.href, mimeType: MD, text: lines.join('\n') }] };
  });

  server.registerResource('kinds', 'brain://kinds', { title: 'Kind vocabulary', mimeType: MD }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: MD, text: ctx.kinds.map((k) => `- ${k.name} (${k.class}): ${k.description}`).join('\n') }],
  }));

  server.registerResource(
    'topic',
    new ResourceTemplate('brain://topics/{+slug}', {
      list: async () => {
        const rows = await listTopics(ctx, { limit: 100 });
        return { resources: rows.map((r) => ({ uri: `brain://topics/${r.slug}`, name: r.slug, title: r.title, mimeType: MD })) };
      },
    }),
    { title: 'A card', description: 'A card as markdown with its timeline; this subject first, then personal', mimeType: MD },
    async (uri, variables) => {
      const slug = decodeURIComponent(String(variables.slug));
      for (const subject of readableSubjects(ctx)) {
        try {
          const t = await getTopic(ctx, { subject, slug, include: ['timeline', 'tags'] });
          return { contents: [{ uri: uri.href, mimeType: MD, text: topicMarkdown(t) }] };
        } catch (error) {
          if (!(error instanceof BrainError && error.code === 'not_found')) throw error;
        }
      }
      // The protocol's own not-found (the SDK's: -32602 with the URI), not an internal error.
      throw new ResourceNotFoundError(uri.href, `no card "${slug}" in ${readableSubjects(ctx).join(' or ')}; read brain://index for the slugs`);
    },
  );
}
