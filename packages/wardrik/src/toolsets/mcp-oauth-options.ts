import { describeType } from '@wardrik/core';
import type { OAuthStore } from '../store/oauth-store.js';
import { type SecretBox, secretBoxFromEnvironment } from './oauth-secret-box.js';

/** What the `authorize` hook is asked: a person must open `url` and sign in. */
export interface McpAuthorizationRequest {
  /** The authorization server's page (PKCE S256, with `state`): show it to a person; never open it on their behalf. */
  readonly url: URL;
  /** The `state` the callback must bring back. */
  readonly state: string;
  /** The toolset's name. */
  readonly toolset: string;
  /** The server as messages name it (its URL without query). */
  readonly server: string;
  /** Whose sign-in this is (`auth.perPrincipal`), or undefined when the toolset shares one. */
  readonly principal?: string;
}

/** What the redirect brought back: the `code` and `state` query parameters of the callback. */
export interface McpAuthorizationResult {
  readonly code: string;
  readonly state: string;
}

/**
 * OAuth for a remote MCP server (`mcpToolset({ url, auth })`), on the MCP SDK's OAuth client:
 * discovery (protected resource metadata, authorization server metadata, OpenID configuration,
 * the scope of a `WWW-Authenticate` challenge, step-up on `insufficient_scope`), client ID metadata
 * documents, dynamic registration or a pre-registered client, PKCE, the token endpoint's auth
 * method (`client_secret_basic`, `client_secret_post`, `none`, `private_key_jwt`), refresh.
 */
export interface McpOAuthOptions {
  /**
   * Where tokens and client registrations are kept: the Wardrik store (any `Store`), encrypted with
   * the key in `WARDRIK_SECRET_KEY` (AES-256-GCM). Building the toolset fails, naming the variable,
   * when it is not set.
   */
  readonly store: OAuthStore;
  /**
   * Each principal signs in on their own: tokens are kept per principal (the run's), and each
   * principal's runs reach the server over a connection of their own. Default false: one sign-in
   * for every run (a service account). The client registration is shared either way.
   */
  readonly perPrincipal?: boolean;
  /**
   * `authorization_code` (a person signs in; needs `redirectUrl`) or `client_credentials` (the
   * client signs in as itself; needs `clientId` and `clientSecret` or `privateKey`). Default:
   * `client_credentials` when a secret or key is given without `redirectUrl`, else `authorization_code`.
   */
  readonly grant?: 'authorization_code' | 'client_credentials';
  /** A pre-registered client's id. Without it the client registers itself (a client ID metadata document if `clientMetadataUrl` is given and the server supports it, else dynamic registration). */
  readonly clientId?: string;
  /** The pre-registered client's secret (`client_secret_basic` or `client_secret_post`, as the server supports). */
  readonly clientSecret?: string;
  /** A PEM private key: the client authenticates with a signed JWT (`private_key_jwt`) instead of a secret. */
  readonly privateKey?: string;
  /** The JWT's algorithm for `privateKey`. Default `RS256`. */
  readonly signingAlgorithm?: string;
  /** The authorization server a pre-registered client belongs to: its credentials are never sent to another. */
  readonly issuer?: string;
  /** An https URL where this client's metadata document is served (its client id, when the server supports them). */
  readonly clientMetadataUrl?: string;
  /** The client's name when it registers. Default `Wardrik`. */
  readonly clientName?: string;
  /** Where the authorization server sends the person back (the code flow). */
  readonly redirectUrl?: string;
  /** The scope to ask for when neither the server's challenge nor its metadata names one. */
  readonly scope?: string;
  /** The token endpoint auth method to register with (dynamic registration). Default: the server's choice. */
  readonly tokenEndpointAuthMethod?: string;
  /**
   * Called when a person must sign in (code flow), with the authorization URL. Return the
   * callback's `{ code, state }` to finish at once (a headless flow, a test), or nothing: the
   * toolset then stays unavailable, saying that it needs authorization, until
   * `toolset.completeAuthorization({ code, state })` is called with the callback's parameters.
   * (A park of kind `authorize`, answered by `wardrik serve`'s callback, is planned: not built yet.)
   * Default: none (the toolset is unavailable until `completeAuthorization`, and logs the URL).
   */
  readonly authorize?: (request: McpAuthorizationRequest) => Promise<McpAuthorizationResult | undefined>;
}

/** The `auth` option, checked. */
export interface CheckedMcpOAuth {
  readonly store: OAuthStore;
  readonly box: SecretBox;
  readonly perPrincipal: boolean;
  readonly grant: 'authorization_code' | 'client_credentials';
  readonly clientId?: string;
  readonly clientSecret?: string;
  readonly privateKey?: string;
  readonly signingAlgorithm: string;
  readonly issuer?: string;
  readonly clientMetadataUrl?: string;
  readonly clientName: string;
  readonly redirectUrl?: string;
  readonly scope?: string;
  readonly tokenEndpointAuthMethod?: string;
  readonly authorize?: McpOAuthOptions['authorize'];
}

const known = [
  'store',
  'perPrincipal',
  'grant',
  'clientId',
  'clientSecret',
  'privateKey',
  'signingAlgorithm',
  'issuer',
  'clientMetadataUrl',
  'clientName',
  'redirectUrl',
  'scope',
  'tokenEndpointAuthMethod',
  'authorize',
];

/** Checks `auth` (and that `WARDRIK_SECRET_KEY` holds a key); `fail` throws naming the toolset. */
export function checkMcpOAuth(value: unknown, fail: (message: string) => never): CheckedMcpOAuth {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail(`auth must be an object such as { store, clientId, clientSecret }, got ${describeType(value)}`);
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!known.includes(key)) fail(`auth.${key} is not an option (expected one of ${known.join(', ')})`);
  }
  const store = record.store as Partial<OAuthStore> | undefined;
  if (
    typeof store !== 'object' ||
    store === null ||
    typeof store.getOAuthCredential !== 'function' ||
    typeof store.putOAuthCredential !== 'function' ||
    typeof store.deleteOAuthCredentials !== 'function'
  ) {
    fail('auth.store must be the Wardrik store (sqliteStore, postgresStore or MemoryStore): tokens are kept there');
  }
  const text = (field: string): string | undefined => {
    const item = record[field];
    if (item === undefined) return undefined;
    if (typeof item !== 'string' || item === '')
      fail(`auth.${field} must be a non-empty string, got ${describeType(item)}`);
    return item as string;
  };
  const url = (field: string): string | undefined => {
    const item = text(field);
    if (item === undefined) return undefined;
    let parsed: URL | undefined;
    try {
      parsed = new URL(item);
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
      fail(`auth.${field} must be an absolute http(s) URL, got ${JSON.stringify(item)}`);
    }
    return item;
  };
  const perPrincipal = record.perPrincipal ?? false;
  if (typeof perPrincipal !== 'boolean') fail(`auth.perPrincipal must be a boolean, got ${describeType(perPrincipal)}`);
  const clientId = text('clientId');
  const clientSecret = text('clientSecret');
  const privateKey = text('privateKey');
  const redirectUrl = url('redirectUrl');
  const clientMetadataUrl = url('clientMetadataUrl');
  if (clientMetadataUrl !== undefined && !clientMetadataUrl.startsWith('https:')) {
    fail('auth.clientMetadataUrl must be an https URL (a client ID metadata document)');
  }
  if ((clientSecret !== undefined || privateKey !== undefined) && clientId === undefined) {
    fail('auth.clientSecret and auth.privateKey are for a pre-registered client: give auth.clientId too');
  }
  if (clientSecret !== undefined && privateKey !== undefined)
    fail('give auth.clientSecret or auth.privateKey, not both');
  const defaultGrant =
    redirectUrl === undefined && (clientSecret !== undefined || privateKey !== undefined)
      ? 'client_credentials'
      : 'authorization_code';
  const grant = record.grant ?? defaultGrant;
  if (grant !== 'authorization_code' && grant !== 'client_credentials') {
    fail(`auth.grant must be 'authorization_code' or 'client_credentials', got ${JSON.stringify(grant)}`);
  }
  if (grant === 'authorization_code' && redirectUrl === undefined) {
    fail(
      'auth.redirectUrl is needed for the authorization-code flow (where the person is sent back); for a client that signs in as itself give auth.clientId with auth.clientSecret or auth.privateKey',
    );
  }
  if (grant === 'client_credentials' && (clientId === undefined || (clientSecret ?? privateKey) === undefined)) {
    fail("auth.grant 'client_credentials' needs auth.clientId with auth.clientSecret or auth.privateKey");
  }
  const authorize = record.authorize;
  if (authorize !== undefined && typeof authorize !== 'function') {
    fail(`auth.authorize must be a function, got ${describeType(authorize)}`);
  }
  let box: SecretBox;
  try {
    box = secretBoxFromEnvironment('auth');
  } catch (cause) {
    fail((cause as Error).message);
  }
  const optional = <K extends string, V>(key: K, item: V | undefined): { [P in K]?: V } =>
    (item === undefined ? {} : { [key]: item }) as { [P in K]?: V };
  return {
    store: store as OAuthStore,
    box: box as unknown as SecretBox,
    perPrincipal: perPrincipal as boolean,
    grant: grant as CheckedMcpOAuth['grant'],
    signingAlgorithm: text('signingAlgorithm') ?? 'RS256',
    clientName: text('clientName') ?? 'Wardrik',
    ...optional('clientId', clientId),
    ...optional('clientSecret', clientSecret),
    ...optional('privateKey', privateKey),
    ...optional('issuer', url('issuer')),
    ...optional('clientMetadataUrl', clientMetadataUrl),
    ...optional('redirectUrl', redirectUrl),
    ...optional('scope', text('scope')),
    ...optional('tokenEndpointAuthMethod', text('tokenEndpointAuthMethod')),
    ...optional('authorize', authorize as McpOAuthOptions['authorize']),
  };
}
