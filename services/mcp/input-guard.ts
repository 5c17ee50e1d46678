// Every tool's arguments, as the client sent them, are checked before the tool runs: NUL
// characters, lone surrogates, JSON nested too deep, too many values, impossible dates.
// Such input is answered as invalid_input naming the field (items[2].body) and the fix,
// never as an internal error that says to try again. The domain layer checks the same
// in parseInput (for the CLI and anything else that calls it directly).
import { checkInput, MAX_JSON_CHARS } from '../knowledge/schemas.js';
import { BrainError } from '../knowledge/errors.js';

export function guardToolInput(tool: string, args: unknown): void {
  checkInput(args, tool);
}

/** A free JSON argument (ingest's data) no longer than MAX_JSON_CHARS as JSON text. */
export function guardJsonSize(tool: string, field: string, value: unknown): void {
  const size = JSON.stringify(value ?? null)?.length ?? 0;
  if (size > MAX_JSON_CHARS) {
    throw new BrainError(
      'invalid_input',
      `${tool}: ${field}: ${size.toLocaleString('en')} characters as JSON; at most ${MAX_JSON_CHARS.toLocaleString('en')}`,
      `Keep "${field}" under ${MAX_JSON_CHARS.toLocaleString('en')} characters: store a large source with ingest content instead.`,
      { details: { field } },
    );
  }
}
