import { z } from 'zod';
import { commitProposal, declineProposal, markAskedHuman, outcomeText, propose, type Proposal } from '../../curation/proposals.js';
import { reason, subjectField } from './fields.js';
import { ok } from '../result.js';
import { ADDITIVE, defineTool, type HumanChannel } from './types.js';

/** Puts the preview to the human directly; only their answer writes anything. */
async function askHuman(human: HumanChannel, proposal: Proposal): Promise<{ accepted: number[] } | 'declined'> {
  const writable = proposal.items.filter((p) => p.action !== '✗');
  const answer = await human.elicit({
    mode: 'form',
    message: `${proposal.preview.split('\n\nProposal ')[0]}\n\nUntick what should not be written.`,
    requestedSchema: {
      type: 'object',
      properties: Object.fromEntries(
        writable.map((p) => [`item_${p.n}`, { type: 'boolean', title: `[${p.n}] ${p.action} ${p.item.type} ${p.item.kind} "${p.item.title}"`, default: true }]),
      ),
    },
  });
  if (answer.action !== 'accept') return 'declined';
  const content = (answer.content ?? {}) as Record<string, unknown>;
  return { accepted: writable.filter((p) => content[`item_${p.n}`] !== false).map((p) => p.n) };
}

export const proposeTool = defineTool({
  name: 'propose',
  description:
    'Session close: propose cards and episodes worth keeping, in one batch, with the fields remember and record take. Writes nothing; returns a preview (search before add, kinds and deny-list checked) for the human.',
  // Lean on purpose (tool definitions cost context in every session); propose() checks
  // each item against the full schema and names any field that is wrong.
  inputSchema: (deps) =>
    z.object({
      items: z.array(
        z.strictObject({
          // Every field remember (topic) and record (episode) take: one the schema left out
          // would be stripped before propose saw it, and silently never written.
          type: z.enum(['topic', 'episode']),
          kind: z.string(),
          title: z.string(),
          summary: z.string().optional(),
          body: z.string().optional().describe('episode: its detail'),
          slug: z.string().optional(),
          tags: z.array(z.string()).optional(),
          mode: z.enum(['append', 'replace']).optional(),
          forceNew: z.boolean().optional(),
          date: z.string().optional().describe('episode: YYYY-MM-DD'),
          source: z.string().optional(),
          topics: z.array(z.string()).optional().describe('episode: card slugs'),
          subject: subjectField(deps),
          reason,
        }),
      ),
    }),
  annotations: ADDITIVE,
  // An episode's body is stored as its detail (see run).
  fieldNames: { detail: 'body' },
  async run(args, { ctx, services, human }) {
    const planner = services.planner;
    // An episode's body is its detail. Fields left out stay out (the items are strict).
    const items = args.items.map(({ body, ...it }) => (body === undefined ? it : { ...it, [it.type === 'episode' ? 'detail' : 'body']: body }));
    const proposal = await propose(ctx, { items }, { ...(planner ? { planner } : {}), ...(services.proposalTtlMinutes ? { ttlMinutes: services.proposalTtlMinutes } : {}) });
    if (!human?.canElicit()) return ok(proposal.preview);
    await markAskedHuman(ctx, proposal.id);
    const answer = await askHuman(human, proposal);
    if (answer === 'declined') {
      await declineProposal(ctx, proposal.id, true);
      return ok(`${proposal.preview.split('\n\nProposal ')[0]}\n\nThe human declined: nothing was written.`);
    }
    const outcomes = await commitProposal(ctx, proposal.id, answer.accepted, true);
    return ok(`The human answered. What happened:\n${outcomeText(outcomes)}`);
  },
});

export const commitTool = defineTool({
  name: 'commit',
  description:
    'Only after the human answered a propose preview: write the items they accepted, or decline. Never on your own judgement.',
  inputSchema: () =>
    z.object({
      proposalId: z.string().uuid(),
      accept: z.array(z.number().int()).optional().describe('item numbers; all when omitted'),
      decline: z.boolean().optional(),
    }),
  annotations: ADDITIVE,
  async run(a, { ctx }) {
    if (a.decline) {
      await declineProposal(ctx, a.proposalId);
      return ok('Declined: nothing was written.');
    }
    return ok(outcomeText(await commitProposal(ctx, a.proposalId, a.accept)));
  },
});
