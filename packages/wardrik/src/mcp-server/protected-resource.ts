/** Where `/mcp` is served. */
export const MCP_PATH = '/mcp';

/** Where its OAuth protected-resource metadata is (RFC 9728): at the root, and with `/mcp` after it. */
export const PROTECTED_RESOURCE_PATHS = [
  '/.well-known/oauth-protected-resource',
  `/.well-known/oauth-protected-resource${MCP_PATH}`,
];

/** RFC 9728's protected-resource metadata, as served. */
export interface ProtectedResourceMetadata {
  readonly resource: string;
  readonly resource_name: string;
  readonly bearer_methods_supported: readonly string[];
  readonly authorization_servers?: readonly string[];
}

/**
 * The protected-resource metadata of `/mcp` at `origin`: a bearer token in the `Authorization`
 * header, issued by the authorization servers configured (none: Wardrik's own tokens, made with
 * `wardrik tokens create`).
 *
 * @example
 * ```ts
 * protectedResourceMetadata('http://127.0.0.1:4000', [])
 * // { resource: 'http://127.0.0.1:4000/mcp', resource_name: 'Wardrik', bearer_methods_supported: ['header'] }
 * ```
 */
export function protectedResourceMetadata(
  origin: string,
  authorizationServers: readonly string[],
): ProtectedResourceMetadata {
  return {
    resource: `${origin}${MCP_PATH}`,
    resource_name: 'Wardrik',
    bearer_methods_supported: ['header'],
    ...(authorizationServers.length ? { authorization_servers: [...authorizationServers] } : {}),
  };
}

/**
 * The `WWW-Authenticate` value a 401 from `/mcp` carries: where the metadata is, and (for a token
 * that was sent but refused) why, as RFC 6750 says.
 *
 * @example
 * ```ts
 * challenge('http://127.0.0.1:4000', 'token revoked')
 * // 'Bearer resource_metadata="http://127.0.0.1:4000/.well-known/oauth-protected-resource/mcp", error="invalid_token", error_description="token revoked"'
 * ```
 */
export function challenge(origin: string, refusedBecause?: string): string {
  const metadata = `resource_metadata="${origin}${PROTECTED_RESOURCE_PATHS[1]}"`;
  if (refusedBecause === undefined) return `Bearer ${metadata}`;
  return `Bearer ${metadata}, error="invalid_token", error_description="${refusedBecause.replace(/["\\]/g, "'")}"`;
}
