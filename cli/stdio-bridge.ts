// `brain serve --stdio` next to a running brain: a client that spawns its MCP server (Claude
// Desktop, a project's .mcp.json) talks stdio, and the subject's server is already running
// in `brain up`. So this process passes each JSON-RPC line from stdin to that server's
// Streamable HTTP endpoint and writes what comes back (responses, and the server's own
// requests such as elicitation) to stdout. Several clients, several subjects, side by side:
// each is one more session of the running servers.
//
// It outlives the brain's restarts: a session the server no longer knows (a restart, or its
// idle expiry) is started again with the client's own initialize, and while the brain is
// down each request gets a JSON-RPC error saying so, until it is back.
import { createInterface } from 'node:readline';
import { McpHttpError, McpHttpSession, type JsonRpcMessage } from './mcp-http.js';

export interface BridgeLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/** How long to wait before opening the server's GET stream again after it ended. */
const RELISTEN_MS = 1_000;

export async function bridgeStdio(url: string, token: string | undefined, log: BridgeLog, input: NodeJS.ReadableStream = process.stdin, output: NodeJS.WritableStream = process.stdout): Promise<void> {
  const session = new McpHttpSession(url, token);
  const write = (m: JsonRpcMessage) => output.write(`${JSON.stringify(m)}\n`);
  let initialize: JsonRpcMessage | undefined;
  let initialized = false;
  let closed = false;
  let listening = false;
  let restarting: Promise<void> | undefined;

  const listen = () => {
    if (listening || closed) return;
    listening = true;
    void (async () => {
      while (!closed && session.id) {
        const status = await session.listen(write).catch(() => 0);
        if (status === 405) break; // the server offers no standalone stream
        if (!closed) await new Promise((resolve) => setTimeout(resolve, RELISTEN_MS));
      }
      listening = false;
    })();
  };

  /** A session again, with the client's own initialize (its answer is not passed on): the server lost the old one, or was down. */
  const restart = () =>
    (restarting ??= (async () => {
      session.forget();
      log.info({ url }, 'starting a new session with the brain');
      const status = await session.post({ ...initialize!, id: `bridge-reinit-${Date.now()}` }, () => undefined);
      if (status >= 400 || !session.id) throw new McpHttpError(`the brain at ${url} refused a new session (HTTP ${status})`, status);
      if (initialized) await session.post({ jsonrpc: '2.0', method: 'notifications/initialized' }, () => undefined);
      listen();
    })().finally(() => {
      restarting = undefined;
    }));

  const forward = async (m: JsonRpcMessage) => {
    if (m.method === 'initialize') initialize = m;
    const isRequest = m.id !== undefined && m.method !== undefined;
    let answered = false;
    const deliver = (r: JsonRpcMessage) => {
      if (isRequest && r.id === m.id && r.method === undefined) answered = true;
      write(r);
    };
    try {
      if (m.method !== 'initialize' && initialize && (!session.id || restarting)) await restart();
      let status = await session.post(m, deliver);
      if (status === 404 && m.method !== 'initialize' && initialize) {
        await restart();
        status = await session.post(m, deliver);
      }
      if (m.method === 'notifications/initialized') {
        initialized = true;
        listen();
      }
      if (status >= 400 && isRequest && !answered) {
        write({ jsonrpc: '2.0', id: m.id!, error: { code: -32000, message: `the brain at ${url} answered HTTP ${status}` } });
      }
    } catch (error) {
      if (!(error instanceof McpHttpError)) throw error;
      // The next message starts a new session, once the brain is back.
      session.forget();
      log.warn({ url, err: error.message }, 'the brain is not answering');
      if (isRequest && !answered) {
        write({
          jsonrpc: '2.0',
          id: m.id!,
          error: { code: -32000, message: `the brain is not running at ${url} (${error.message}); start it with \`brain up\` (or \`npm start\`), then try again` },
        });
      }
    }
  };

  const lines = createInterface({ input, crlfDelay: Infinity });
  const inFlight = new Set<Promise<void>>();
  for await (const line of lines) {
    if (!line.trim()) continue;
    let message: JsonRpcMessage | JsonRpcMessage[];
    try {
      message = JSON.parse(line) as JsonRpcMessage;
    } catch {
      write({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error: a line on stdin is not JSON' } });
      continue;
    }
    // Each message on its own request, in parallel: a long tool call does not hold up a ping or a cancellation.
    const p = forward(message as JsonRpcMessage).catch((error: unknown) => log.warn({ err: error }, 'bridge failed to pass a message on'));
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  }
  await Promise.allSettled([...inFlight]);
  closed = true;
  await session.close();
}
