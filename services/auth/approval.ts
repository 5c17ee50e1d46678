// The owner's side: what waits for approval, approving it (a one-time code the owner types
// into the authorize page), the grants in force and their revocation. Used by `brain auth`
// (cli/commands/auth.ts) and by the tests, on the same store file the servers use.
import { PENDING_TTL_MS } from './authority.js';
import { READ_SCOPE } from './scopes.js';
import { humanCode, type AuthStore, type Grant } from './store.js';
import { hashToken } from './tokens.js';

export interface PendingView {
  id: string;
  subject: string;
  client: string;
  clientId: string;
  /** Where the client's code goes: the host the owner should recognise (claude.ai, ...). */
  redirectHost: string;
  scope: string;
  approved: boolean;
  expiresInSeconds: number;
}

export function listPending(store: AuthStore, now = Date.now()): PendingView[] {
  const state = store.read();
  return Object.values(state.pending)
    .filter((p) => p.expiresAt > now)
    .sort((a, b) => a.createdAt - b.createdAt)
    .map((p) => ({
      id: p.id,
      subject: p.subject,
      client: state.clients[p.clientId]?.name ?? '(unknown)',
      clientId: p.clientId,
      redirectHost: safeHost(p.redirectUri),
      scope: p.approval?.scope ?? p.scope,
      approved: Boolean(p.approval),
      expiresInSeconds: Math.round((p.expiresAt - now) / 1000),
    }));
}

function safeHost(uri: string): string {
  try {
    const u = new URL(uri);
    return u.host || u.protocol;
  } catch {
    return '?';
  }
}

export class ApprovalError extends Error {}

/**
 * Approves a waiting request and returns the one-time code for its page (only the code's
 * hash is kept). readOnly narrows the grant to brain:read whatever the client asked for.
 */
export function approve(store: AuthStore, id: string, opts: { readOnly?: boolean } = {}, now = Date.now()): { code: string; request: PendingView } {
  const code = humanCode(8);
  const wanted = id.trim().toUpperCase().replace(/[^A-Z0-9]/g, '');
  store.update((state) => {
    const p = state.pending[wanted];
    if (!p || p.expiresAt <= now) throw new ApprovalError(`no authorization request ${id} is waiting (they expire after ${PENDING_TTL_MS / 60_000} minutes); list them with: brain auth approve`);
    p.approval = { codeHash: hashToken(code), scope: opts.readOnly ? READ_SCOPE : p.scope, attempts: 0 };
  }, now);
  const request = listPending(store, now).find((p) => p.id === wanted)!;
  return { code, request };
}

export interface GrantView {
  id: string;
  subject: string;
  client: string;
  clientId: string;
  scope: string;
  created: string;
  lastUsed: string | undefined;
  state: 'active' | 'revoked';
}

export function listGrants(store: AuthStore): GrantView[] {
  return Object.values(store.read().grants)
    .sort((a, b) => a.createdAt - b.createdAt)
    .map((g: Grant) => ({
      id: g.id,
      subject: g.subject,
      client: g.clientName,
      clientId: g.clientId,
      scope: g.scope,
      created: new Date(g.createdAt).toISOString(),
      lastUsed: g.lastUsedAt ? new Date(g.lastUsedAt).toISOString() : undefined,
      state: g.revokedAt ? 'revoked' : 'active',
    }));
}

/** Revokes a grant by its id, or every grant of a client by the client's id: its access and refresh tokens stop working at once. */
export function revoke(store: AuthStore, idOrClient: string, now = Date.now()): number {
  return store.update((state) => {
    let n = 0;
    for (const g of Object.values(state.grants)) {
      if ((g.id === idOrClient || g.clientId === idOrClient) && !g.revokedAt) {
        g.revokedAt = now;
        n++;
      }
    }
    for (const [k, p] of Object.entries(state.pending)) if (p.clientId === idOrClient) delete state.pending[k];
    for (const [k, c] of Object.entries(state.codes)) if (c.clientId === idOrClient) delete state.codes[k];
    return n;
  }, now);
}
