import { loadRuntimeConfig } from '../../config/runtime.js';
import type { RunningBrain } from '../../services/runtime/serve.js';
import { ListenGate } from '../../services/runtime/listen-gate.js';
import { phaseList, StartPhases } from '../../services/runtime/start-phases.js';
import { parse, table } from '../output.js';
import type { Command } from './index.js';

const usage = 'brain up [--init]';

export const up: Command = {
  usage,
  summary: 'Start every subject\'s MCP server in this process (the embedded brain when BRAIN_DATABASE_URL is unset).',
  async run(args) {
    // Counted from the process's start: Node and the modules are the first step.
    const phases = new StartPhases();
    const { values } = parse(args, { init: { type: 'boolean' } }, usage);
    const rt = loadRuntimeConfig();
    // Postgres's WebAssembly compiles on a worker thread while this one loads the modules below.
    if (rt.mode === 'embedded') import('../../db/postgres-wasm.js').then((m) => m.startCompilingPostgres(), () => undefined);
    const { openAdmin, requestNewBrain } = await import('../../db/open.js');
    phases.mark('modules loaded');
    // --init: start a new, empty brain even when secrets exist beside a missing data directory.
    if (values.init) requestNewBrain();
    // The embedded brain starts opening now: its data directory is checked at once, PGlite
    // starts once the servers and the web view listen and have been quiet a moment (ListenGate),
    // and its WebAssembly compiles on a worker thread meanwhile, while the servers' modules
    // (fastify, the MCP SDK, the tools) load on this one.
    const gate = new ListenGate();
    const opening = rt.mode === 'embedded' ? openAdmin(rt, { mark: phases.mark, startAfter: gate.opened }) : undefined;
    opening?.catch(() => undefined);
    // The web view's modules too, when it will start: loaded after the servers listen, they
    // could wait for PGlite's start, which holds this thread once it runs, and the banner waits
    // for the view (docs/clients.md, start time).
    const [{ closeOnSignals, serveAll }, { createLogger }] = await Promise.all([
      import('../../services/runtime/serve.js'),
      import('../../services/runtime/logger.js'),
      rt.viewPort === undefined ? undefined : import('../../services/view/start.js'),
    ]).catch(async (error: unknown) => {
      gate.open();
      await opening?.then((a) => a.close()).catch(() => undefined);
      throw error;
    });
    const logger = createLogger('claude-brain', process.env.BRAIN_LOG_LEVEL ?? 'warn');
    const brain = await serveAll(rt, logger, phases, opening, gate);
    const where = rt.mode === 'embedded' ? `embedded brain (PGlite) in ${rt.dataDir}` : 'database server';
    process.stdout.write(
      `claude-brain is up: ${where}.\n\n` +
        `${table([['SUBJECT', 'URL'], ...brain.servers.map((s) => [s.subject.name, s.url])])}\n\n` +
        `${searchLine(brain)}\n` +
        `${viewLine(brain)}\n` +
        `Started in ${phases.summary()}.\n\n` +
        'Connect Claude Code (one line per subject):\n' +
        brain.servers.map((s) => `  claude mcp add --transport http brain-${s.subject.name} ${s.url}`).join('\n') +
        '\n\nSee docs/clients.md for Claude Desktop. Stop with Ctrl-C.\n',
    );
    closeOnSignals(brain, logger);
    process.stdout.write(`${await brainOpen(brain, phases)}\n`);
    await new Promise(() => undefined);
    return 0;
  },
};

/**
 * Embedded: the servers listen while the brain opens. Waits for it, and says how long it took
 * and its steps; a failure to open stops every server and is thrown.
 */
export async function brainOpen(brain: RunningBrain, phases: StartPhases): Promise<string> {
  const listening = phases.list.length;
  try {
    await brain.database;
  } catch (error) {
    await brain.close();
    throw error;
  }
  const opened = phases.list.slice(listening);
  const steps = opened.length ? `: ${phaseList(opened)}` : '';
  return `The brain is open, ${(phases.total / 1000).toFixed(1)} s after start${steps}.`;
}

/** Where the read-only web view is (docs/view.md), or why it is not running. */
export function viewLine(brain: RunningBrain): string {
  if (brain.view) return `Web view (read-only): ${brain.view.url}`;
  return brain.viewProblem ? `Web view: not started (${brain.viewProblem}); \`brain view\` starts it, BRAIN_VIEW_PORT moves it.` : 'Web view: off (BRAIN_VIEW_PORT=off).';
}

/** Which embedder serves search, and its state when the banner prints (the model loads after it). */
export function searchLine(brain: RunningBrain): string {
  if (!brain.embedder.embedder) return `Search: keyword only; ${brain.embedder.reason}.`;
  const state = brain.warmUp.state === 'warming' ? 'its model is loading in the background' : brain.warmUp.state === 'ready' ? 'ready' : 'not loaded (keyword hits until it is)';
  return `Search: hybrid (keyword + meaning) with the ${brain.embedder.reason}; ${state}.`;
}
