// The cryptography of the built-in authorization server, all from node:crypto: random
// secrets, their hashes (only hashes are stored), PKCE S256, and the access tokens, which
// are HS256 JWTs signed with one key of this brain (so a subject can check a token without
// a store lookup of the token itself; revocation is checked on the grant it names).
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** A new secret: 32 random bytes, base64url (43 characters). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** What the store keeps of a secret (a refresh token, a code, a client secret). */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Constant-time comparison of two hex digests (or any two strings, by their hashes). */
export function sameSecret(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

/** PKCE (RFC 7636), S256 only: BASE64URL(SHA256(verifier)) must equal the challenge. */
export function pkceMatches(verifier: string, challenge: string): boolean {
  if (!/^[A-Za-z0-9\-._~]{43,128}$/.test(verifier)) return false;
  return sameSecret(createHash('sha256').update(verifier).digest('base64url'), challenge);
}

export interface AccessClaims {
  iss: string;
  /** The resource (this subject's canonical MCP URL) the token is for: RFC 8707. */
  aud: string;
  sub: string;
  client_id: string;
  /** The grant (the owner's approval of a client) the token belongs to: revoked with it. */
  gid: string;
  scope: string;
  iat: number;
  exp: number;
  jti: string;
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

export function signAccessToken(claims: AccessClaims, key: Buffer): string {
  const body = `${b64({ alg: 'HS256', typ: 'at+jwt' })}.${b64(claims)}`;
  return `${body}.${createHmac('sha256', key).update(body).digest('base64url')}`;
}

/** The claims of a token whose signature is ours; undefined otherwise (the caller checks aud, exp, grant). */
export function verifyAccessToken(token: string, key: Buffer): AccessClaims | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const expected = createHmac('sha256', key).update(`${parts[0]}.${parts[1]}`).digest();
  const given = Buffer.from(parts[2]!, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const header = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8')) as { alg?: string };
    if (header.alg !== 'HS256') return undefined;
    return JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as AccessClaims;
  } catch {
    return undefined;
  }
}
