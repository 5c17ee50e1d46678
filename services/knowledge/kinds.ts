import type { KindClass } from '../../config/kinds.js';
import type { BrainContext } from './context.js';
import { BrainError } from './errors.js';

/** Checks a kind against the vocabulary; the error lists the valid kinds of that class. */
export function assertKind(ctx: BrainContext, kind: string, cls: KindClass): void {
  const found = ctx.kinds.find((k) => k.name === kind);
  if (found && found.class === cls) return;
  const valid = ctx.kinds.filter((k) => k.class === cls).map((k) => k.name);
  if (found) {
    throw new BrainError(
      'wrong_kind_class',
      `"${kind}" is ${withArticle(found.class)} kind, not ${withArticle(cls)} kind`,
      `Use one of the ${cls} kinds: ${valid.join(', ')}.`,
      { details: { validKinds: valid } },
    );
  }
  throw new BrainError('unknown_kind', `unknown ${cls} kind "${kind}"`, `Use one of: ${valid.join(', ')}. New kinds are added to kinds.yaml by a person.`, {
    details: { validKinds: valid },
  });
}

/** "a topic", "an episode". */
function withArticle(cls: KindClass): string {
  return /^[aeiou]/.test(cls) ? `an ${cls}` : `a ${cls}`;
}
