// `list what=stats`: one line per subject this brain can read, from the same figures
// `brain stats` prints (services/knowledge/stats.ts), kept to a line to spare the context.
import type { BrainContext } from '../knowledge/index.js';
import { statsFigures, subjectStats, type SubjectStats } from '../knowledge/stats.js';

export function statsLine(s: SubjectStats): string {
  const figures = statsFigures(s).map((f) => {
    const inner = f.breakdown?.length ? f.breakdown.map(([k, n]) => `${k} ${n}`).join(', ') : f.detail;
    // Every label is a plural in -s: one of a thing drops it.
    return `${f.value} ${f.value === 1 ? f.label.slice(0, -1) : f.label}${inner ? ` (${inner})` : ''}`;
  });
  return `${s.subject}: ${figures.join(', ')}`;
}

export async function brainStats(ctx: BrainContext, subjects: readonly string[]): Promise<string> {
  const out: string[] = [];
  for (const s of subjects) out.push(statsLine(await subjectStats(ctx, s)));
  return out.join('\n');
}
