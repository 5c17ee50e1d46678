// A small MCP client over Streamable HTTP, for the CLI's side of a running brain: one-shot
// tool calls (`brain search`, `call`, `pipe`, ... next to `brain up`) and the stdio bridge
// (`brain serve --stdio`, cli/stdio-bridge.ts). Only node:http: a CLI command that talks to a
// running brain loads no MCP SDK, zod, database or embedder, and answers in a fraction of
// a second.
import { request as httpRequest, Agent, type IncomingMessage } from 'node:http';
import { VERSION } from '../config/package.js';

export type JsonRpcMessage = {
  jsonrpc: '2.0';
  id?: string | number | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
};

/** The brain could not be reached, or answered outside the protocol (a status code, not a JSON-RPC error). */
export class McpHttpError extends Error {
  override readonly name = 'McpHttpError';
  constructor(
    message: string,
    /** The HTTP status, or undefined when there was no answer at all. */
    readonly status?: number,
  ) {
    super(message);
  }
}

export const PROTOCOL_VERSION = '2025-06-18';

/** Reads a text/event-stream body, calling onMessage with each JSON-RPC message in it. */
function readEvents(res: IncomingMessage, onMessage: (m: JsonRpcMessage) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    let data: string[] = [];
    const flushLine = (line: string) => {
      if (line === '') {
        if (data.length) {
          const text = data.join('\n');
          data = [];
          try {
            onMessage(JSON.parse(text) as JsonRpcMessage);
          } catch {
            /* not a JSON-RPC message (a comment or keep-alive): ignored */
          }
        }
        return;
      }
      if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
    };
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buffer += chunk;
      for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
        flushLine(buffer.slice(0, nl).replace(/\r$/, ''));
        buffer = buffer.slice(nl + 1);
      }
    });
    res.once('end', () => {
      flushLine(buffer);
      flushLine('');
      resolve();
    });
    res.once('close', () => resolve());
    res.once('error', reject);
  });
}

/** One MCP session with one subject's server. */
export class McpHttpSession {
  private sessionId: string | undefined;
  private protocolVersion: string | undefined;
  private readonly agent = new Agent({ keepAlive: true });
  private readonly url: URL;

  constructor(
    url: string,
    private readonly token?: string,
  ) {
    this.url = new URL(url);
  }

  get id(): string | undefined {
    return this.sessionId;
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return {
      accept: 'application/json, text/event-stream',
      ...(this.sessionId ? { 'mcp-session-id': this.sessionId } : {}),
      ...(this.protocolVersion ? { 'mcp-protocol-version': this.protocolVersion } : {}),
      ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
      ...extra,
    };
  }

  private send(method: 'POST' | 'GET' | 'DELETE', body?: string): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        this.url,
        { method, agent: this.agent, headers: this.headers(body === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }) },
        resolve,
      );
      req.once('error', (error) => reject(new McpHttpError(`cannot reach the brain at ${this.url.href}: ${error.message}`)));
      req.end(body);
    });
  }

  /**
   * Posts one message (or a batch); every message the server sends back on that request's
   * stream goes to onMessage, in order. Resolves with the HTTP status once the stream ends.
   */
  async post(message: JsonRpcMessage | JsonRpcMessage[], onMessage: (m: JsonRpcMessage) => void): Promise<number> {
    const res = await this.send('POST', JSON.stringify(message));
    const status = res.statusCode ?? 0;
    const sid = res.headers['mcp-session-id'];
    if (typeof sid === 'string') this.sessionId = sid;
    const type = String(res.headers['content-type'] ?? '');
    const deliver = (m: JsonRpcMessage) => {
      // The version both sides settled on goes in every later request's header.
      const v = m.result?.protocolVersion;
      if (typeof v === 'string' && !Array.isArray(message) && message.method === 'initialize') this.protocolVersion = v;
      onMessage(m);
    };
    if (type.includes('text/event-stream')) {
      await readEvents(res, deliver);
    } else {
      let text = '';
      res.setEncoding('utf8');
      for await (const chunk of res) text += chunk as string;
      if (text.trim()) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          throw new McpHttpError(`the brain at ${this.url.href} answered ${status} with a body that is not JSON`, status);
        }
        for (const m of Array.isArray(parsed) ? parsed : [parsed]) deliver(m as JsonRpcMessage);
      }
    }
    return status;
  }

  /** A request and its response (any other message on its stream goes to onOther). */
  async request(method: string, params: Record<string, unknown>, onOther: (m: JsonRpcMessage) => void = () => undefined): Promise<JsonRpcMessage> {
    const id = Math.floor(Math.random() * 2 ** 31);
    let response: JsonRpcMessage | undefined;
    const status = await this.post({ jsonrpc: '2.0', id, method, params }, (m) => {
      if (m.id === id && (m.result !== undefined || m.error !== undefined)) response = m;
      else onOther(m);
    });
    if (!response) throw new McpHttpError(`the brain at ${this.url.href} answered ${method} with HTTP ${status} and no result`, status);
    return response;
  }

  async initialize(clientName = 'brain-cli'): Promise<JsonRpcMessage> {
    const r = await this.request('initialize', { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: clientName, version: VERSION } });
    if (r.error) throw new McpHttpError(`the brain refused to start a session: ${r.error.message}`);
    await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' }, () => undefined);
    return r;
  }

  /** The standalone GET stream, for messages the server sends outside any request. Resolves with its status when it ends. */
  async listen(onMessage: (m: JsonRpcMessage) => void): Promise<number> {
    const res = await this.send('GET');
    if (res.statusCode !== 200) {
      res.resume();
      return res.statusCode ?? 0;
    }
    await readEvents(res, onMessage);
    return 200;
  }

  /** Ends the session on the server (DELETE); the server frees it at once instead of after its idle timeout. */
  async close(): Promise<void> {
    if (this.sessionId) {
      try {
        const res = await this.send('DELETE');
        res.resume();
      } catch {
        /* the server is gone: nothing to end */
      }
    }
    this.sessionId = undefined;
    this.protocolVersion = undefined;
    this.agent.destroy();
  }

  /** Forgets the session (the server lost it: a restart, or its idle expiry) without telling the server. */
  forget(): void {
    this.sessionId = undefined;
    this.protocolVersion = undefined;
  }
}

export interface ToolText {
  ok: boolean;
  text: string;
}

/** The text of a tools/call result, as `brain call` prints it; a JSON-RPC error becomes a failed call. */
export function toolText(r: JsonRpcMessage): ToolText {
  if (r.error) return { ok: false, text: `Error (invalid_input): ${r.error.message}` };
  const content = (r.result?.content ?? []) as { type: string; text?: string }[];
  return { ok: r.result?.isError !== true, text: content.map((c) => c.text ?? '').join('\n') };
}
