import { resolve } from 'node:path';
import { importBrain, type ImportReport } from '../../services/gbrain/import.js';
import { importMemoryJson, type MemoryImportReport } from '../../services/gbrain/import-memory.js';
import { loadKindMap } from '../../services/gbrain/kind-map.js';
import { progressReporter } from '../../services/gbrain/progress.js';
import { CliError, parse, printJson } from '../output.js';
import { EXIT, SUBJECT_OPTIONS, SUBJECT_USAGE, withSubject } from '../subject.js';
import type { Command } from './index.js';

const usage = `brain import DIR ${SUBJECT_USAGE} [--kind-map FILE] [--root-kind KIND] [--reason R] [--quiet]\n       brain import --from mcp-memory FILE ${SUBJECT_USAGE} [--kind-map FILE] [--reason R]`;

export const importCommand: Command = {
  usage,
  summary:
    'Import a GBrain markdown directory (or, with --from mcp-memory, an MCP memory server memory.json) into one subject, as its own role. ' +
    'Re-running changes nothing; exit 1 when a file failed or did not validate.',
  async run(args) {
    const { values, positionals } = parse(
      args,
      { ...SUBJECT_OPTIONS, 'kind-map': { type: 'string' }, 'root-kind': { type: 'string' }, from: { type: 'string' }, reason: { type: 'string' }, quiet: { type: 'boolean' } },
      usage,
    );
    const [source, extra] = positionals;
    if (!source || extra) throw new CliError(`one directory (or memory.json) is needed\nusage: ${usage}`);
    if (values.from !== undefined && values.from !== 'mcp-memory') throw new CliError(`--from knows only "mcp-memory"\nusage: ${usage}`);
    return withSubject(values, async (ctx, session) => {
      if (values.from === 'mcp-memory') {
        const kindMap = values['kind-map'] ? { ...loadKindMap(values['kind-map'], {}) } : undefined;
        const report = await importMemoryJson(ctx, resolve(source), { kindMap, reason: values.reason });
        if (values.json) printJson(report);
        else process.stdout.write(memoryText(report));
        return report.failed.length === 0 ? EXIT.ok : EXIT.failed;
      }
      const kindMap = values['kind-map'] ? loadKindMap(values['kind-map']) : undefined;
      const report = await importBrain(ctx, resolve(source), {
        kindMap,
        rootKind: values['root-kind'],
        reason: values.reason,
        ...(session.maintain ? { afterWrite: session.maintain } : {}),
        ...(values.quiet ? {} : { onProgress: progressReporter(process.stderr) }),
      });
      if (values.json) printJson(report);
      else process.stdout.write(importText(report));
      return report.ok ? EXIT.ok : EXIT.failed;
    }, { writes: true });
  },
};

function importText(r: ImportReport): string {
  const check = (good: boolean): string => (good ? '✓' : '✗');
  const lines = [
    `Imported ${r.dir} into "${r.subject}" in ${r.seconds.toFixed(1)} s.`,
    `  pages:        ${r.pages.found} found, ${r.pages.created} created, ${r.pages.updated} updated, ${r.pages.unchanged} unchanged, ${r.pages.failed} failed`,
    `  links:        ${r.links.parsed} parsed (${r.links.distinct} distinct), ${r.links.stored} stored, ${r.links.missingTargets.length} to pages that do not exist`,
    `  timeline:     ${r.timeline.entries} entries, ${r.timeline.episodes} episodes`,
    `  sidecars:     ${r.sidecars.found} found, ${r.sidecars.stored} stored, ${r.sidecars.rawSources} raw-data sources`,
    `  special:      ${r.specialFiles.found} found, ${r.specialFiles.stored} stored; log.md: ${r.ingestLog.entries} entries, ${r.ingestLog.stored} ingest records`,
    '',
    'Validation:',
    `  ${check(r.pages.stored === r.pages.found)} files → pages: ${r.pages.found} → ${r.pages.stored}`,
    `  ${check(r.links.stored === r.links.distinct)} links: ${r.links.distinct} → ${r.links.stored}`,
    `  ${check(r.timeline.episodes === r.timeline.entries)} timeline entries: ${r.timeline.entries} → ${r.timeline.episodes}`,
    `  ${check(r.contentCheck.different.length === 0)} content hash: ${r.contentCheck.identical}/${r.contentCheck.checked} files render back byte for byte`,
  ];
  for (const p of r.contentCheck.different.slice(0, 20)) lines.push(`      differs: ${p}`);
  if (r.links.missingTargets.length) lines.push('', `Links to missing pages (kept): ${r.links.missingTargets.slice(0, 20).join(', ')}${r.links.missingTargets.length > 20 ? ', …' : ''}`);
  if (r.failed.length) lines.push('', `Not imported (${r.failed.length}):`, ...r.failed.map((f) => `  ${f.reason}`));
  if (r.warnings.length) lines.push('', `Warnings (${r.warnings.length}):`, ...r.warnings.slice(0, 50).map((w) => `  ${w.reason}`));
  const dup = r.possibleDuplicates;
  if (dup.count) {
    lines.push(
      '',
      `New pages that may be the same thing as another card (${dup.count}; kept as imported, \`brain lint\` lists them all):`,
      ...dup.shown.map((d) => `  ${d.a} ~ ${d.b} (${d.verdict === 'same' ? 'likely the same' : 'possibly the same'}, p ${d.score}) → to merge: brain merge ${d.b} ${d.a} --subject ${r.subject}`),
      ...(dup.count > dup.shown.length ? [`  … and ${dup.count - dup.shown.length} more`] : []),
    );
  }
  return `${lines.join('\n')}\n`;
}

function memoryText(r: MemoryImportReport): string {
  const lines = [
    `Imported ${r.file} into "${r.subject}" in ${r.seconds.toFixed(1)} s.`,
    `  entities:  ${r.entities} → ${r.topics.created} created, ${r.topics.updated} updated, ${r.topics.unchanged} unchanged, ${r.topics.failed} failed`,
    `  relations: ${r.relations} → ${r.links.stored} links`,
  ];
  if (r.failed.length) lines.push('', 'Not imported:', ...r.failed.map((f) => `  ${f.entity}: ${f.reason}`));
  if (r.warnings.length) lines.push('', 'Warnings:', ...r.warnings.map((w) => `  ${w}`));
  return `${lines.join('\n')}\n`;
}
