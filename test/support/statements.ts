// Counting the statements a test's code sends to the database: a context whose kysely instance
// passes every statement through unchanged, counting those whose query tree (as JSON: the raw SQL
// fragments included) contains `marker`. For tests that check how often something is read.
import type { BrainContext } from '../../services/knowledge/index.js';

export function countingStatements(ctx: BrainContext, marker: string): { ctx: BrainContext; count: () => number; reset: () => void } {
  let n = 0;
  const db = ctx.db.withPlugin({
    transformQuery: (args) => {
      if (JSON.stringify(args.node).includes(marker)) n++;
      return args.node;
    },
    transformResult: async (args) => args.result,
  });
  return { ctx: { ...ctx, db }, count: () => n, reset: () => (n = 0) };
}
