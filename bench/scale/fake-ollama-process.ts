// The bench's fake Ollama in a process of its own, for a measurement that runs the brain in the
// bench's process (parts.ts): there a fake on the same thread could not take a request while a
// statement holds the thread, nor compute beside it, as a real Ollama does. Prints its URL on
// stdout and serves until it is killed or its stdin closes.
//   node dist/bench/scale/fake-ollama-process.js [--delay-ms N] [--refuse-documents]
import { parseArgs } from 'node:util';
import { startBenchOllama } from './fake-ollama.js';

const { values } = parseArgs({ options: { 'delay-ms': { type: 'string', default: '0' }, 'refuse-documents': { type: 'boolean', default: false } } });
const delayMs = Number(values['delay-ms']);
if (!Number.isInteger(delayMs) || delayMs < 0) {
  console.error(`--delay-ms must be a whole number >= 0, got ${values['delay-ms']}`);
  process.exit(2);
}
const fake = await startBenchOllama({ delayMs, refuseDocuments: values['refuse-documents'] });
process.stdout.write(`${fake.url}\n`);
// The parent's end closes this pipe (fake-ollama-child.ts), however the parent ended.
process.stdin.on('close', () => process.exit(0)).resume();
