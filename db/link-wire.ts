// The values of the database link (db/link-server.ts, db/link-dialect.ts) as JSON lines,
// keeping the types the embedded brain's rows and parameters have: Date, bytes, bigint,
// NaN and the infinities, which JSON alone would turn into strings, objects or null.
// A tag is an object with one key ({"$date": ms}); any key of the data that starts with "$"
// is sent with one more "$", so no row can be mistaken for a tag.

const TAGS = ['$date', '$bytes', '$bigint', '$num'] as const;

function replacer(this: Record<string, unknown>, key: string, value: unknown): unknown {
  const raw = this[key];
  if (raw instanceof Date) return { $date: Number.isNaN(raw.getTime()) ? null : raw.getTime() };
  if (raw instanceof Uint8Array) return { $bytes: Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('base64') };
  if (typeof raw === 'bigint') return { $bigint: raw.toString() };
  if (typeof raw === 'number' && !Number.isFinite(raw)) return { $num: String(raw) };
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).some((k) => k.startsWith('$'))) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.startsWith('$') ? `$${k}` : k, v]));
  }
  return value;
}

function reviver(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && (TAGS as readonly string[]).includes(keys[0]!)) {
    const v = (value as Record<string, unknown>)[keys[0]!];
    switch (keys[0]) {
      case '$date':
        return new Date(v === null ? Number.NaN : (v as number));
      case '$bytes':
        return new Uint8Array(Buffer.from(v as string, 'base64'));
      case '$bigint':
        return BigInt(v as string);
      default:
        return Number(v);
    }
  }
  if (!keys.some((k) => k.startsWith('$'))) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.startsWith('$') ? k.slice(1) : k, v]));
}

/** One message as one line (JSON never holds a raw newline). */
export function encodeLine(message: unknown): string {
  return `${JSON.stringify(message, replacer)}\n`;
}

export function decodeLine<T = unknown>(line: string): T {
  return JSON.parse(line, reviver) as T;
}

/** Splits a stream of bytes into lines; refuses a line longer than `maxBytes`. */
export function lineReader(onLine: (line: string) => void, maxBytes: number): (chunk: Buffer) => void {
  let pending: Buffer[] = [];
  let size = 0;
  return (chunk) => {
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      pending.push(chunk.subarray(start, nl));
      const line = Buffer.concat(pending).toString('utf8');
      pending = [];
      size = 0;
      start = nl + 1;
      onLine(line);
    }
    if (start < chunk.length) {
      pending.push(chunk.subarray(start));
      size += chunk.length - start;
      if (size > maxBytes) throw new RangeError(`a message of the database link is longer than ${maxBytes} bytes`);
    }
  };
}

/** The fields of a database error that the brain's error mapping reads (services/knowledge/errors.ts). */
export const ERROR_FIELDS = ['code', 'detail', 'hint', 'constraint', 'schema', 'table', 'column', 'dataType', 'severity', 'where', 'position'] as const;

export interface WireError {
  message: string;
  [field: string]: unknown;
}

export function errorToWire(error: unknown): WireError {
  const e = (error ?? {}) as Record<string, unknown>;
  const out: WireError = { message: typeof e.message === 'string' ? e.message : String(error) };
  for (const f of ERROR_FIELDS) if (e[f] !== undefined && e[f] !== null) out[f] = e[f];
  return out;
}

/** A database error from the other side of the link, with the same fields as the original. */
export class LinkedDatabaseError extends Error {
  override readonly name = 'LinkedDatabaseError';
  [field: string]: unknown;
  constructor(wire: WireError) {
    super(wire.message);
    for (const f of ERROR_FIELDS) if (wire[f] !== undefined) this[f] = wire[f];
  }
}
