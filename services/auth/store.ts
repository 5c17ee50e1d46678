// The owner's OAuth state: registered clients, authorization requests waiting for the
// owner, authorization codes and grants (an approved client with its refresh token).
//
// Where it lives, and why: one JSON file, BRAIN_SECRETS_DIR/oauth.json, mode 0600 in the
// 0700 secrets folder, beside the role passwords and bearer tokens. Not a table: every app
// role can read its own schema, so a table there would let a subject (or a project reading
// personal) see which clients hold grants for other subjects; a table no app role can read
// would be reachable only through the admin path, which a running subject server does not
// have (in the compose stack each server holds only its own role's password). The server
// and `brain auth` both need it, with or without the database running. Only hashes of
// secrets are kept (refresh tokens, codes, client secrets, one-time approval codes);
// access tokens are not stored at all (tokens.ts).
//
// Writers (the servers of `brain up`, `brain auth`) take a lock file around each
// read-modify-write and replace the file by rename, so a reader never sees half a file.
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomToken } from './tokens.js';

export interface StoredClient {
  id: string;
  name: string;
  redirectUris: string[];
  /** Confidential clients (client_secret_post/basic): the secret's hash. */
  secretHash?: string;
  createdAt: number;
}

/** What an authorization request asks for, kept from the request to its code. */
interface RequestTerms {
  clientId: string;
  subject: string;
  resource: string;
  scope: string;
  redirectUri: string;
  codeChallenge: string;
}

/** An authorization request shown on the authorize page, waiting for `brain auth approve`. */
export interface PendingRequest extends RequestTerms {
  /** Short and readable: the owner matches it between the page and `brain auth approve`. */
  id: string;
  state?: string;
  createdAt: number;
  expiresAt: number;
  /** Set by `brain auth approve`: the one-time code's hash, the scope granted, wrong tries so far. */
  approval?: { codeHash: string; scope: string; attempts: number };
}

export interface AuthCode extends RequestTerms {
  hash: string;
  expiresAt: number;
}

export interface Grant {
  id: string;
  clientId: string;
  clientName: string;
  subject: string;
  resource: string;
  scope: string;
  createdAt: number;
  lastUsedAt?: number;
  revokedAt?: number;
  refreshHash: string;
  refreshExpiresAt: number;
  /** Refresh tokens already rotated away: one presented again means it leaked, and the grant is revoked. */
  spentRefreshHashes: string[];
}

export interface AuthState {
  version: 1;
  clients: Record<string, StoredClient>;
  pending: Record<string, PendingRequest>;
  codes: Record<string, AuthCode>;
  grants: Record<string, Grant>;
}

const empty = (): AuthState => ({ version: 1, clients: {}, pending: {}, codes: {}, grants: {} });

/** Clients registered but never approved are dropped beyond this many (registration is open to anyone). */
export const MAX_UNGRANTED_CLIENTS = 100;
/** Authorization requests waiting for the owner: beyond this many the oldest unapproved ones go. */
export const MAX_PENDING = 20;
const LOCK_WAIT_MS = 3_000;
const STALE_LOCK_MS = 15_000;

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

export class AuthStore {
  readonly file: string;
  private cache: { mtimeMs: number; size: number; state: AuthState } | undefined;

  constructor(readonly dir: string) {
    this.file = join(dir, 'oauth.json');
  }

  /** The current state (cached until the file changes). */
  read(): AuthState {
    if (!existsSync(this.file)) return empty();
    const st = statSync(this.file);
    if (this.cache && this.cache.mtimeMs === st.mtimeMs && this.cache.size === st.size) return this.cache.state;
    const state = JSON.parse(readFileSync(this.file, 'utf8')) as AuthState;
    this.cache = { mtimeMs: st.mtimeMs, size: st.size, state };
    return state;
  }

  /** Read-modify-write under the lock; fn changes the state in place and returns its answer. */
  update<T>(fn: (state: AuthState) => T, now: number = Date.now()): T {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const lock = `${this.file}.lock`;
    const started = Date.now();
    for (;;) {
      try {
        closeSync(openSync(lock, 'wx', 0o600));
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        // A writer that died holding it (a kill -9 between open and rm).
        try {
          if (Date.now() - statSync(lock).mtimeMs > STALE_LOCK_MS) rmSync(lock, { force: true });
        } catch {
          /* gone meanwhile */
        }
        if (Date.now() - started > LOCK_WAIT_MS) throw new Error(`the OAuth state is locked by another process (${lock}); try again`);
        sleep(10);
      }
    }
    try {
      this.cache = undefined;
      const state = existsSync(this.file) ? (JSON.parse(readFileSync(this.file, 'utf8')) as AuthState) : empty();
      const answer = fn(state);
      // After the change, so the caps hold in the file (the newest entries are the ones kept).
      prune(state, now);
      const tmp = `${this.file}.${process.pid}.tmp`;
      writeFileSync(tmp, `${JSON.stringify(state, null, 1)}\n`, { mode: 0o600 });
      chmodSync(tmp, 0o600);
      renameSync(tmp, this.file);
      return answer;
    } finally {
      rmSync(lock, { force: true });
    }
  }

  /** This brain's key for signing access tokens (generated once, 0600). */
  signingKey(): Buffer {
    const file = join(this.dir, 'oauth-signing.key');
    if (!existsSync(file)) {
      mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      try {
        writeFileSync(file, `${randomToken(32)}\n`, { mode: 0o600, flag: 'wx' });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
    return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url');
  }
}

/** Drops what has expired: requests, codes, grants whose refresh token ran out, and surplus never-approved clients. */
function prune(state: AuthState, now: number): void {
  for (const [k, p] of Object.entries(state.pending)) if (p.expiresAt <= now) delete state.pending[k];
  const waiting = Object.values(state.pending).filter((p) => !p.approval).sort((a, b) => a.createdAt - b.createdAt);
  for (const p of waiting.slice(0, Math.max(0, Object.keys(state.pending).length - MAX_PENDING))) delete state.pending[p.id];
  for (const [k, c] of Object.entries(state.codes)) if (c.expiresAt <= now) delete state.codes[k];
  for (const [k, g] of Object.entries(state.grants)) if (g.refreshExpiresAt <= now) delete state.grants[k];
  const granted = new Set(Object.values(state.grants).map((g) => g.clientId));
  const pendingFor = new Set(Object.values(state.pending).map((p) => p.clientId));
  const idle = Object.values(state.clients)
    .filter((c) => !granted.has(c.id) && !pendingFor.has(c.id))
    .sort((a, b) => a.createdAt - b.createdAt);
  for (const c of idle.slice(0, Math.max(0, idle.length - MAX_UNGRANTED_CLIENTS))) delete state.clients[c.id];
}

/** A short code for people to read and type: no 0/O, 1/I/L. */
export function humanCode(length = 8): string {
  const alphabet = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
  const bytes = Buffer.from(randomToken(length * 2), 'base64url');
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[bytes[i]! % alphabet.length];
  return out;
}
