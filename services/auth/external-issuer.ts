// An external authorization server instead of the built-in one (BRAIN_OAUTH_ISSUER): tokens
// are JWTs it signed, checked against the keys it publishes (its metadata's jwks_uri), for
// its issuer name, this subject's resource as audience, unexpired, with our scopes in `scope`
// (or `scp`). ES256 and RS256 only (never `none`, never a shared-secret algorithm, whatever
// the token's header says). Keys are cached for 10 minutes and fetched again, at most once a
// minute, when a token names a key we do not have (the issuer rotated them).
import { createPublicKey, verify, type JsonWebKey, type KeyObject } from 'node:crypto';
import { parseScope } from './scopes.js';

export interface ExternalClaims {
  iss: string;
  sub?: string;
  aud: string | string[];
  exp: number;
  nbf?: number;
  scope?: string;
  scp?: string[] | string;
  client_id?: string;
  azp?: string;
}

export interface VerifiedExternal {
  subject: string;
  client: string;
  scopes: string[];
}

const KEYS_TTL_MS = 10 * 60_000;
const REFETCH_MS = 60_000;
const ALGS: Record<string, { hash: string; kty: string; dsaEncoding?: 'ieee-p1363' }> = {
  ES256: { hash: 'sha256', kty: 'EC', dsaEncoding: 'ieee-p1363' },
  RS256: { hash: 'sha256', kty: 'RSA' },
};

export class ExternalIssuer {
  private keys = new Map<string, { key: KeyObject; kty: string }>();
  private fetchedAt = 0;
  private fetching: Promise<void> | undefined;

  constructor(
    readonly issuer: string,
    private readonly fetchFn: typeof fetch = fetch,
  ) {}

  private async jwksUri(): Promise<string> {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const res = await this.fetchFn(new URL(path, this.issuer)).catch(() => undefined);
      if (!res?.ok) continue;
      const meta = (await res.json()) as { issuer?: string; jwks_uri?: string };
      if (meta.issuer !== this.issuer || !meta.jwks_uri) throw new Error(`the issuer's metadata names issuer ${meta.issuer ?? '(none)'} or no jwks_uri`);
      return meta.jwks_uri;
    }
    throw new Error(`no authorization server metadata at ${this.issuer}`);
  }

  private refresh(now: number): Promise<void> {
    this.fetching ??= (async () => {
      try {
        const res = await this.fetchFn(await this.jwksUri());
        const { keys } = (await res.json()) as { keys?: (JsonWebKey & { kid?: string; use?: string })[] };
        const next = new Map<string, { key: KeyObject; kty: string }>();
        for (const jwk of keys ?? []) {
          if (jwk.use && jwk.use !== 'sig') continue;
          try {
            next.set(jwk.kid ?? '', { key: createPublicKey({ key: jwk, format: 'jwk' }), kty: String(jwk.kty) });
          } catch {
            /* a key type we cannot use */
          }
        }
        this.keys = next;
      } finally {
        this.fetchedAt = now;
        this.fetching = undefined;
      }
    })();
    return this.fetching;
  }

  /** The token's subject, client and scopes, or the reason it is refused. */
  async verify(token: string, acceptsAudience: (aud: string) => boolean, now: number): Promise<VerifiedExternal | string> {
    const parts = token.split('.');
    if (parts.length !== 3) return 'not a JWT';
    let header: { alg?: string; kid?: string };
    let claims: ExternalClaims;
    try {
      header = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8'));
      claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
    } catch {
      return 'not a JWT';
    }
    const alg = ALGS[header.alg ?? ''];
    if (!alg) return `algorithm ${header.alg ?? '(none)'} is not accepted`;
    const kid = header.kid ?? '';
    // Keys we have: fetched again after their TTL; a key we lack: at most once a minute (a
    // flood of made-up key ids must not become a flood of requests to the issuer).
    if (now - this.fetchedAt > (this.keys.has(kid) ? KEYS_TTL_MS : REFETCH_MS)) await this.refresh(now).catch(() => undefined);
    const key = this.keys.get(kid);
    if (!key || key.kty !== alg.kty) return 'signed with a key the issuer does not publish';
    const ok = verify(alg.hash, Buffer.from(`${parts[0]}.${parts[1]}`), alg.dsaEncoding ? { key: key.key, dsaEncoding: alg.dsaEncoding } : key.key, Buffer.from(parts[2]!, 'base64url'));
    if (!ok) return 'bad signature';
    if (claims.iss !== this.issuer) return 'issued by another server';
    const auds = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (!auds.some((a) => typeof a === 'string' && acceptsAudience(a))) return 'the token is for another resource';
    const seconds = Math.floor(now / 1000);
    if (typeof claims.exp !== 'number' || claims.exp <= seconds) return 'the token expired; refresh it';
    if (typeof claims.nbf === 'number' && claims.nbf > seconds + 60) return 'the token is not valid yet';
    const scope = claims.scope ?? (Array.isArray(claims.scp) ? claims.scp.join(' ') : claims.scp);
    return { subject: claims.sub ?? '', client: claims.client_id ?? claims.azp ?? 'external client', scopes: parseScope(scope) };
  }
}
