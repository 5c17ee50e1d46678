// PGlite's backend messages read straight from the bytes Postgres wrote, for the dialect
// (pglite-dialect.ts). PGlite's own reader copies every field of every row into an ArrayBuffer
// of its own before decoding it: at 7,500 pages that reading was 2-3 ms of JavaScript in each
// hybrid search (its four statements return about 1,100 fields). Here a reply is copied out of
// the WASM heap once and each field is decoded where it lies.
//
// The messages are the shapes PGlite's parseResults() and parseDescribeStatementResults() read
// (name, fields, text, dataTypeIDs), so rows are still typed by PGlite's parsers; an error is
// PGlite's own DatabaseError with the same fields, so SQLSTATE checks see no difference.
import { protocol, type PGlite } from '@electric-sql/pglite';

const { DatabaseError } = protocol.messages;
type DatabaseError = InstanceType<typeof DatabaseError>;

export type WireMessage =
  | { name: 'rowDescription'; fields: { name: string; dataTypeID: number }[] }
  | { name: 'dataRow'; fields: (string | null)[] }
  | { name: 'commandComplete'; text: string }
  | { name: 'parameterDescription'; dataTypeIDs: number[] }
  | { name: 'readyForQuery'; status: string }
  | { name: 'bindComplete' | 'parseComplete' | 'closeComplete' | 'noData' | 'emptyQuery' | 'portalSuspended' | 'notice' | 'other' };

const decoder = new TextDecoder('utf-8', { fatal: false });

/** Messages the dialect reads by name only. A notice (N) is only logged by PGlite, in debug mode. */
const NAMED_ONLY = new Map<number, 'bindComplete' | 'parseComplete' | 'closeComplete' | 'noData' | 'emptyQuery' | 'portalSuspended' | 'notice'>([
  [0x32, 'bindComplete'],
  [0x31, 'parseComplete'],
  [0x33, 'closeComplete'],
  [0x6e, 'noData'],
  [0x49, 'emptyQuery'],
  [0x73, 'portalSuspended'],
  [0x4e, 'notice'],
]);

/** The reply of one batch: its messages up to the first error, and that error. */
export interface WireReply {
  messages: WireMessage[];
  error?: DatabaseError;
}

/** Reads every message of `bytes`; after an error only further errors would follow, and they are not read. */
export function readReply(bytes: Uint8Array): WireReply {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const messages: WireMessage[] = [];
  let at = 0;
  // A NUL-terminated string starting at `from`: its text and the offset after its NUL.
  const cstring = (from: number): [string, number] => {
    const end = bytes.indexOf(0, from);
    if (end < 0) throw new Error('PGlite reply: a string without its terminator');
    return [decoder.decode(bytes.subarray(from, end)), end + 1];
  };
  while (at + 5 <= bytes.length) {
    const type = bytes[at]!;
    const length = view.getInt32(at + 1);
    const body = at + 5;
    const next = at + 1 + length;
    if (length < 4 || next > bytes.length) throw new Error(`PGlite reply: a message of type ${type} runs past the reply's end`);
    switch (type) {
      case 0x44: { // D: DataRow
        const count = view.getInt16(body);
        const fields = new Array<string | null>(count);
        let p = body + 2;
        for (let i = 0; i < count; i++) {
          const len = view.getInt32(p);
          p += 4;
          if (len < 0) fields[i] = null;
          else {
            fields[i] = decoder.decode(bytes.subarray(p, p + len));
            p += len;
          }
        }
        messages.push({ name: 'dataRow', fields });
        break;
      }
      case 0x54: { // T: RowDescription
        const count = view.getInt16(body);
        const fields = new Array<{ name: string; dataTypeID: number }>(count);
        let p = body + 2;
        for (let i = 0; i < count; i++) {
          const [name, after] = cstring(p);
          // table oid (4), column number (2), type oid (4), type size (2), type modifier (4), format (2)
          fields[i] = { name, dataTypeID: view.getInt32(after + 6) };
          p = after + 18;
        }
        messages.push({ name: 'rowDescription', fields });
        break;
      }
      case 0x43: // C: CommandComplete
        messages.push({ name: 'commandComplete', text: cstring(body)[0] });
        break;
      case 0x74: { // t: ParameterDescription
        const count = view.getUint16(body);
        const dataTypeIDs = new Array<number>(count);
        for (let i = 0; i < count; i++) dataTypeIDs[i] = view.getInt32(body + 2 + 4 * i);
        messages.push({ name: 'parameterDescription', dataTypeIDs });
        break;
      }
      case 0x5a: // Z: ReadyForQuery
        messages.push({ name: 'readyForQuery', status: String.fromCharCode(bytes[body]!) });
        break;
      case 0x45: // E: ErrorResponse
        return { messages, error: databaseError(bytes, body, next, length) };
      default: // parameter status, notifications, copy: nothing the dialect reads
        messages.push({ name: NAMED_ONLY.get(type) ?? 'other' });
    }
    at = next;
  }
  if (at !== bytes.length) throw new Error('PGlite reply: it ends inside a message');
  return { messages };
}

/** An ErrorResponse as PGlite's reader builds it: message and every field Postgres sent. */
function databaseError(bytes: Uint8Array, from: number, to: number, length: number): DatabaseError {
  const fields: Record<string, string> = {};
  let p = from;
  while (p < to && bytes[p] !== 0) {
    const code = String.fromCharCode(bytes[p]!);
    const end = bytes.indexOf(0, p + 1);
    if (end < 0 || end >= to) break;
    fields[code] = decoder.decode(bytes.subarray(p + 1, end));
    p = end + 1;
  }
  const error = new DatabaseError(fields.M ?? 'unknown database error', length, 'error');
  Object.assign(error, {
    severity: fields.S,
    code: fields.C,
    detail: fields.D,
    hint: fields.H,
    position: fields.P,
    internalPosition: fields.p,
    internalQuery: fields.q,
    where: fields.W,
    schema: fields.s,
    table: fields.t,
    column: fields.c,
    dataType: fields.d,
    constraint: fields.n,
    file: fields.F,
    line: fields.L,
    routine: fields.R,
  });
  return error;
}

/**
 * Sends `message` to PGlite and returns its reply's bytes, copied once out of the WASM heap.
 * The caller holds PGlite's lock (runExclusive). execProtocolRawStream leaves its output callback
 * in place after it returns, and PGlite's own calls (query, exec, execProtocol) would then send
 * their replies to it: an empty execProtocolStream after it puts PGlite's own reader back (it
 * runs no statement: Postgres reads nothing and owes no ReadyForQuery).
 */
export async function exchange(pg: PGlite, message: Uint8Array, syncToFs: boolean): Promise<Uint8Array> {
  let out = new Uint8Array(16 * 1024);
  let used = 0;
  try {
    await pg.execProtocolRawStream(message, {
      syncToFs,
      onRawData: (chunk: Uint8Array) => {
        if (used + chunk.length > out.length) {
          const grown = new Uint8Array(Math.max(out.length * 2, used + chunk.length));
          grown.set(out.subarray(0, used));
          out = grown;
        }
        out.set(chunk, used);
        used += chunk.length;
      },
    });
  } finally {
    await pg.execProtocolStream(new Uint8Array(0), { syncToFs: false });
  }
  return out.subarray(0, used);
}
