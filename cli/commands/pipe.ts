import { createInterface } from 'node:readline';
import { parse } from '../output.js';
import { SUBJECT_OPTIONS, SUBJECT_USAGE } from '../subject-options.js';
import { withToolCalls } from '../tool-calls.js';
import type { Command } from './index.js';

const usage = `brain pipe ${SUBJECT_USAGE} < requests.jsonl`;

export const pipe: Command = {
  usage,
  summary: 'JSONL mode: each input line {"tool": NAME, "args": {...}} (or {"id": ..} too) gets one output line {"id", "ok", "text"} or {"id", "ok": false, "error"}.',
  async run(args) {
    const { values } = parse(args, SUBJECT_OPTIONS, usage);
    return withToolCalls(values, async (runner) => {
      let failed = 0;
      const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
      let line = 0;
      for await (const raw of rl) {
        line++;
        if (!raw.trim()) continue;
        let request: { id?: unknown; tool?: unknown; args?: unknown };
        try {
          request = JSON.parse(raw) as typeof request;
        } catch {
          failed++;
          process.stdout.write(`${JSON.stringify({ id: line, ok: false, error: `line ${line} is not valid JSON` })}\n`);
          continue;
        }
        const id = request.id ?? line;
        if (typeof request.tool !== 'string') {
          failed++;
          process.stdout.write(`${JSON.stringify({ id, ok: false, error: 'each line needs "tool" (a tool name) and "args" (an object)' })}\n`);
          continue;
        }
        const r = await runner.call(request.tool, request.args ?? {});
        if (!r.ok) failed++;
        process.stdout.write(`${JSON.stringify({ id, ok: r.ok, text: r.text })}\n`);
      }
      return failed ? 1 : 0;
    });
  },
};
