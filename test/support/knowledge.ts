// Domain contexts over a brain under test: one per subject, each on that subject's own
// role (login pool on the server, SET LOCAL ROLE on PGlite).
import { createContext, type BrainContext } from '../../services/knowledge/index.js';
import type { BrainUnderTest } from './brains.js';

export async function contextFor(brain: BrainUnderTest, subject: string): Promise<BrainContext> {
  const s = brain.config.subjects.find((x) => x.name === subject)!;
  return createContext(s, brain.subjectDb(subject).db);
}

export function roleOf(brain: BrainUnderTest, subject: string): string {
  return brain.config.subjects.find((x) => x.name === subject)!.role;
}
