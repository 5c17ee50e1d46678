// The authorization endpoint (OAuth 2.1 authorization code with PKCE, S256 only). GET shows
// the request on a page and keeps it waiting; the owner approves it on the brain's machine
// with `brain auth approve ID`, which prints a one-time code; typed into the page (POST), it
// sends the browser back to the client with an authorization code.
//
// There is deliberately no "Approve" button: the page is reachable through the tunnel, and a
// tunnel that rewrites Host to 127.0.0.1 would make a "local only" button anyone's. Typing a
// code that only a shell on the brain's machine can print proves it is the owner.
import { CODE_TTL_MS, PENDING_TTL_MS, type OAuthAuthority } from './authority.js';
import { requestedScope } from './scopes.js';
import { humanCode, type PendingRequest } from './store.js';
import { hashToken, randomToken, sameSecret } from './tokens.js';

export type AuthorizeAnswer = { kind: 'page'; status: number; html: string } | { kind: 'redirect'; location: string };

/** Wrong one-time codes allowed per request before it is dropped. */
export const MAX_CODE_ATTEMPTS = 5;

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, body: string, status = 200): AuthorizeAnswer {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:2rem auto;padding:0 1rem}code,input{font:1.1rem ui-monospace,monospace}
input{width:12ch;padding:.3rem}button{font-size:1rem;padding:.4rem 1rem;margin:.3rem .3rem 0 0}.muted{color:#666}</style></head>
<body><h1>${esc(title)}</h1>${body}</body></html>`;
  return { kind: 'page', status, html };
}

function redirect(uri: string, params: Record<string, string | undefined>): AuthorizeAnswer {
  const u = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.set(k, v);
  return { kind: 'redirect', location: u.toString() };
}

function waitingPage(authority: OAuthAuthority, p: PendingRequest, clientName: string, note = ''): AuthorizeAnswer {
  const where = (() => {
    try {
      return new URL(p.redirectUri).host || p.redirectUri;
    } catch {
      return p.redirectUri;
    }
  })();
  return page(
    `Connect ${clientName} to ${authority.subject}`,
    `<p><b>${esc(clientName)}</b> asks for <b>${esc(p.scope)}</b> on the <b>${esc(authority.subject)}</b> brain; it will be sent back to <code>${esc(where)}</code>.</p>
<p>On the brain's machine, run:</p><p><code>brain auth approve ${esc(p.id)}</code></p>
<p class="muted">(add <code>--read-only</code> to allow reading only) and type the code it prints:</p>
${note ? `<p><b>${esc(note)}</b></p>` : ''}
<form method="post" action="/authorize"><input type="hidden" name="request" value="${esc(p.id)}">
<input name="code" autocomplete="one-time-code" autocapitalize="characters" maxlength="12" required autofocus>
<button type="submit">Connect</button></form>
<form method="post" action="/authorize"><input type="hidden" name="request" value="${esc(p.id)}"><input type="hidden" name="deny" value="1"><button type="submit">Cancel</button></form>
<p class="muted">This request expires in ${PENDING_TTL_MS / 60_000} minutes.</p>`,
  );
}

/** GET /authorize: checks the request and shows it, waiting for the owner. */
export function startAuthorization(authority: OAuthAuthority, query: Record<string, string | undefined>, origin: string, isOwnResource: (r: string) => boolean): AuthorizeAnswer {
  const state = authority.store.read();
  const client = query.client_id ? state.clients[query.client_id] : undefined;
  // Until the client and its redirect URI are known, errors are shown, never redirected (RFC 6749 §4.1.2.1).
  if (!client) return page('Unknown client', '<p>This client is not registered here. Connect again from the app: it registers itself first.</p>', 400);
  const redirectUri = query.redirect_uri ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
  if (!redirectUri || !client.redirectUris.includes(redirectUri)) return page('Wrong redirect URI', '<p>The redirect URI is not one this client registered.</p>', 400);
  const back = (error: string, description: string) => redirect(redirectUri, { error, error_description: description, state: query.state, iss: origin });
  if (query.response_type !== 'code') return back('unsupported_response_type', 'only response_type=code is supported');
  if (!query.code_challenge || !/^[A-Za-z0-9_-]{43}$/.test(query.code_challenge)) return back('invalid_request', 'PKCE is required: code_challenge (S256)');
  if (query.code_challenge_method !== 'S256') return back('invalid_request', 'code_challenge_method must be S256');
  const resource = query.resource ?? authority.resource(origin);
  if (!isOwnResource(resource)) return back('invalid_target', `this server issues tokens for ${authority.resource(origin)} only`);
  const now = authority.now();
  const pending: PendingRequest = {
    id: humanCode(8),
    clientId: client.id,
    subject: authority.subject,
    resource: resource.replace(/\/$/, ''),
    scope: requestedScope(query.scope),
    redirectUri,
    codeChallenge: query.code_challenge,
    ...(query.state !== undefined ? { state: query.state } : {}),
    createdAt: now,
    expiresAt: now + PENDING_TTL_MS,
  };
  authority.store.update((s) => {
    s.pending[pending.id] = pending;
  }, now);
  return waitingPage(authority, pending, client.name);
}

/** POST /authorize: the one-time code typed in (or Cancel). */
export function completeAuthorization(authority: OAuthAuthority, form: Record<string, string | undefined>, origin: string): AuthorizeAnswer {
  const now = authority.now();
  const id = (form.request ?? '').toUpperCase();
  const typed = (form.code ?? '').toUpperCase().replace(/[^A-Z0-9]/g, '');
  const outcome = authority.store.update((state) => {
    const p = state.pending[id];
    if (!p || p.subject !== authority.subject) return { kind: 'gone' as const };
    const clientName = state.clients[p.clientId]?.name ?? 'unnamed client';
    if (form.deny) {
      delete state.pending[id];
      return { kind: 'denied' as const, p };
    }
    if (!p.approval) return { kind: 'waiting' as const, p, clientName, note: 'Not approved yet: run the command above first.' };
    if (!sameSecret(hashToken(typed), p.approval.codeHash)) {
      p.approval.attempts++;
      if (p.approval.attempts >= MAX_CODE_ATTEMPTS) {
        delete state.pending[id];
        return { kind: 'gone' as const };
      }
      return { kind: 'waiting' as const, p, clientName, note: 'That code is not right; check it and try again.' };
    }
    delete state.pending[id];
    const code = randomToken();
    state.codes[hashToken(code)] = {
      hash: hashToken(code),
      clientId: p.clientId,
      subject: p.subject,
      resource: p.resource,
      scope: p.approval.scope,
      redirectUri: p.redirectUri,
      codeChallenge: p.codeChallenge,
      expiresAt: now + CODE_TTL_MS,
    };
    return { kind: 'approved' as const, p, code };
  }, now);
  switch (outcome.kind) {
    case 'gone':
      return page('Request expired', '<p>This request is no longer waiting (expired, cancelled or too many wrong codes). Connect again from the app.</p>', 400);
    case 'denied':
      return redirect(outcome.p.redirectUri, { error: 'access_denied', error_description: 'the owner cancelled', state: outcome.p.state, iss: origin });
    case 'waiting':
      return waitingPage(authority, outcome.p, outcome.clientName, outcome.note);
    case 'approved':
      return redirect(outcome.p.redirectUri, { code: outcome.code, state: outcome.p.state, iss: origin });
  }
}
