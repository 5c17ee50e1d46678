// Starts fake-ollama-process.ts as a child process, for the benches that run the brain in their
// own process (parts.ts, cold-reads.ts): it refuses document batches, so no worker embeds while
// the searches run, and answers query embeddings after `delayMs`. It ends when this process does
// (its stdin closes), even one that crashed: left running, it held the caller's stderr open.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fail } from './kept-brain.js';

export async function startFakeOllamaProcess(delayMs: number): Promise<{ url: string; stop(): void }> {
  const entry = join(dirname(fileURLToPath(import.meta.url)), 'fake-ollama-process.js');
  const child = spawn(process.execPath, [entry, '--delay-ms', String(delayMs), '--refuse-documents'], { stdio: ['pipe', 'pipe', 'inherit'] });
  let listening = false;
  child.once('exit', (code) => listening || fail(`the fake Ollama process ended (${code}) before it listened`));
  const [first] = (await once(child.stdout, 'data')) as [Buffer];
  listening = true;
  return { url: String(first).trim(), stop: () => child.kill() };
}
