// One subject's OAuth settings at run time: the store, the signing key, the lifetimes, the
// clock (injectable, so tests expire tokens without waiting), and the subject's identity as a
// resource. Each subject server is its own authorization server and protected resource, at
// its own origin: the loopback names on its port, and its public name behind a tunnel when
// the owner gave one (BRAIN_PUBLIC_URLS). Its canonical resource URL (RFC 8707, the `aud` of
// its tokens) is that origin + /mcp; a token for another subject names another origin.
import type { FastifyRequest } from 'fastify';
import { ExternalIssuer } from './external-issuer.js';
import type { AuthStore } from './store.js';

export interface OAuthAuthorityOptions {
  subject: string;
  store: AuthStore;
  /** The public origin behind a tunnel, e.g. https://homelab.example.ts.net (no path). */
  publicUrl?: string | undefined;
  /** Access token lifetime (default 10 minutes). */
  accessTtlSeconds?: number;
  /** Refresh token lifetime (default 30 days); each use rotates it. */
  refreshTtlSeconds?: number;
  /** Milliseconds since the epoch (default Date.now). */
  now?: () => number;
  /** An external authorization server's issuer URL: its tokens (JWKS-checked) instead of the built-in server's. */
  externalIssuer?: string | undefined;
}

export const DEFAULT_ACCESS_TTL_SECONDS = 600;
export const DEFAULT_REFRESH_TTL_SECONDS = 30 * 24 * 3600;
/** How long an authorization request waits for the owner, and a code for its exchange. */
export const PENDING_TTL_MS = 10 * 60_000;
export const CODE_TTL_MS = 60_000;

const LOOPBACK = ['127.0.0.1', 'localhost', '[::1]'];

export class OAuthAuthority {
  readonly subject: string;
  readonly store: AuthStore;
  readonly publicUrl: URL | undefined;
  readonly accessTtlSeconds: number;
  readonly refreshTtlSeconds: number;
  readonly now: () => number;
  readonly external: ExternalIssuer | undefined;
  private keyCache: Buffer | undefined;

  constructor(opts: OAuthAuthorityOptions) {
    this.subject = opts.subject;
    this.store = opts.store;
    this.publicUrl = opts.publicUrl ? new URL(opts.publicUrl) : undefined;
    this.accessTtlSeconds = opts.accessTtlSeconds ?? DEFAULT_ACCESS_TTL_SECONDS;
    this.refreshTtlSeconds = opts.refreshTtlSeconds ?? DEFAULT_REFRESH_TTL_SECONDS;
    this.now = opts.now ?? Date.now;
    this.external = opts.externalIssuer ? new ExternalIssuer(opts.externalIssuer) : undefined;
  }

  get key(): Buffer {
    this.keyCache ??= this.store.signingKey();
    return this.keyCache;
  }

  /** The public Host name, for the Host/Origin rules of this subject only. */
  get publicHost(): string | undefined {
    return this.publicUrl?.host;
  }

  /**
   * The origin a request reached us at: the public URL when its Host is the public name (the
   * tunnel ends TLS), else http on the Host it named (already checked against the allowed names).
   */
  origin(request: FastifyRequest): string {
    const host = request.headers.host ?? `127.0.0.1:${request.socket.localPort}`;
    if (this.publicUrl && host.toLowerCase() === this.publicUrl.host.toLowerCase()) return this.publicUrl.origin;
    return `http://${host}`;
  }

  resource(origin: string): string {
    return `${origin}/mcp`;
  }

  /** Every origin that is this subject: the public one and the loopback names on this server's port. */
  origins(request: FastifyRequest): Set<string> {
    const port = request.socket.localPort;
    const out = new Set(LOOPBACK.map((h) => `http://${h}:${port}`));
    if (this.publicUrl) out.add(this.publicUrl.origin);
    return out;
  }

  /** Is `resource` this subject's MCP endpoint (at any of its origins)? */
  isOwnResource(request: FastifyRequest, resource: string): boolean {
    for (const o of this.origins(request)) if (this.resource(o) === resource.replace(/\/$/, '')) return true;
    return false;
  }
}
