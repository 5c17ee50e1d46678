// Prompts: the session-close rubric, a briefing, and guidance for ingesting a meeting.
import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/server';
import type { BrainContext } from '../knowledge/index.js';

function user(text: string) {
  return { messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }] };
}

export const SESSION_CLOSE_RUBRIC = `Worth keeping:
- decisions and why they were taken (decision topics, decision-made episodes);
- facts about the environment, tools and people that will matter again;
- methods that worked, and gotchas that cost time;
- what happened and when (work-session, incident, deploy, chapter-write... episodes).
Not worth keeping: chit-chat; what the brain already says (search first); secrets, credentials or personal data; guesses.`;

export function registerPrompts(server: McpServer, ctx: BrainContext): void {
  const subject = ctx.subject.name;
  server.registerPrompt(
    'session-close',
    { title: 'Close the session', description: 'Propose what this session taught, for the human to confirm' },
    async () =>
      user(
        `We are closing this session in the "${subject}" brain. Review the conversation and propose what is worth keeping.\n\n${SESSION_CLOSE_RUBRIC}\n\n` +
          'For each item: search first; prefer updating an existing card over a new one. Use the propose tool with all items in one batch ' +
          `(aim each at "${subject}"${ctx.subject.isPersonal ? '' : ', or at "personal" with a reason when it is generic and free of project specifics'}). ` +
          'Show the preview to the human exactly as returned and write nothing until they confirm.',
      ),
  );
  server.registerPrompt(
    'briefing',
    { title: 'Briefing', description: 'What changed recently and what needs attention', argsSchema: z.object({ days: z.string().optional().describe('look-back window, default 7') }) },
    async ({ days }) =>
      user(
        `Compile a short briefing from the "${subject}" brain for the last ${days ?? '7'} days: list cards updated since then (list what=cards since=...), ` +
          'read the most relevant ones with get include=timeline, and summarise what changed, what is open, and what needs attention. Cite cards as subject:slug.',
      ),
  );
  server.registerPrompt(
    'ingest-meeting',
    { title: 'Ingest a meeting', description: 'Turn a meeting transcript into cards and episodes', argsSchema: z.object({ transcript: z.string().describe('the transcript or notes') }) },
    async ({ transcript }) =>
      user(
        `Ingest this meeting into the "${subject}" brain. 1) ingest the text verbatim (ingest with content and a title naming the meeting and its date) and note the document id it answers. ` +
          '2) For each person, company, project or decision that matters: search, then remember (update the existing card, or create one). ' +
          '3) Cite the transcript on every card you wrote: ingest with slug, documentId, locator (the timestamp or paragraph) and quote (the words the card rests on). ' +
          '4) record a meeting episode dated to the meeting, attached to those cards. 5) link cards that the meeting connects, with the sentence as context. ' +
          'Keep cards distilled; the transcript stays in the documents store, and get with include sources shows where each card came from.\n\n---\n' +
          transcript,
      ),
  );
}
