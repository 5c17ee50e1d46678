// Runs one suite twice: on the embedded brain (PGlite, SET LOCAL ROLE) and on the real
// server (login roles). The suite names carry [pglite] / [postgres] for the reporter.
import { afterAll, beforeAll, describe, inject } from 'vitest';
import { embeddedBrain, serverBrain, type BrainUnderTest } from './brains.js';

export type Target = 'pglite' | 'postgres';

export function describeOnBothDatabases(name: string, body: (brain: () => BrainUnderTest, target: Target) => void, targets: readonly Target[] = ['pglite', 'postgres']): void {
  for (const target of targets) describeOn(target, name, body);
}

export function describeOn(target: Target, name: string, body: (brain: () => BrainUnderTest, target: Target) => void): void {
  const url = inject('pgAdminUrl');
  describe.skipIf(target === 'postgres' && !url)(`[${target}] ${name}`, () => {
    let brain: BrainUnderTest | undefined;
    beforeAll(async () => {
      brain = target === 'pglite' ? await embeddedBrain() : await serverBrain(url!);
    });
    afterAll(async () => {
      await brain?.close();
    });
    body(() => brain!, target);
  });
}

/** Runs a statement and returns 'ok' or the SQLSTATE it failed with. */
export async function outcome(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
    return 'ok';
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (!code) throw error;
    return code;
  }
}
