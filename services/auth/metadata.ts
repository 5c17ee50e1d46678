// Discovery documents. RFC 9728 protected-resource metadata (what MCP clients fetch after
// a 401: where to get a token, which scopes), at /.well-known/oauth-protected-resource and
// at the path-suffixed form /.well-known/oauth-protected-resource/mcp that RFC 9728 §3.1
// derives from the resource URL; RFC 8414 authorization-server metadata at
// /.well-known/oauth-authorization-server. Both name the origin the request came in at, so
// the same server answers correctly on loopback and through its tunnel.
import type { OAuthAuthority } from './authority.js';
import { SUPPORTED_SCOPES } from './scopes.js';

export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';
export const AUTHORIZATION_SERVER_PATH = '/.well-known/oauth-authorization-server';

export function protectedResourceMetadata(authority: OAuthAuthority, origin: string) {
  return {
    resource: authority.resource(origin),
    authorization_servers: [authority.external?.issuer ?? origin],
    scopes_supported: [...SUPPORTED_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: `claude-brain ${authority.subject}`,
  };
}

export function authorizationServerMetadata(origin: string) {
  return {
    issuer: origin,
    authorization_endpoint: `${origin}/authorize`,
    token_endpoint: `${origin}/token`,
    registration_endpoint: `${origin}/register`,
    scopes_supported: [...SUPPORTED_SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic'],
    code_challenge_methods_supported: ['S256'],
    // The authorization response carries iss (RFC 9207), against mix-up between servers.
    authorization_response_iss_parameter_supported: true,
  };
}

/** The WWW-Authenticate value of a 401 from /mcp (MCP authorization, RFC 9728 §5.1). */
export function challenge(origin: string, error?: { code: string; description: string }): string {
  const parts = [`resource_metadata="${origin}${PROTECTED_RESOURCE_PATH}/mcp"`, `scope="${SUPPORTED_SCOPES.join(' ')}"`];
  if (error) parts.push(`error="${error.code}"`, `error_description="${error.description}"`);
  return `Bearer ${parts.join(', ')}`;
}
