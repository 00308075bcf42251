import { createHash, randomBytes } from 'node:crypto';
import {
  type AddClientAuthentication,
  auth,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  UnauthorizedError,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { createPrivateKeyJwtAuth } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { OAuthCredentialKind } from '../store/oauth-store.js';
import { McpAuthorizationRequiredError } from './mcp-authorization-required.js';
import type { CheckedMcpOAuth, McpAuthorizationResult } from './mcp-oauth-options.js';

/** Who a session signs in for, and where. */
export interface McpOAuthSessionOptions {
  readonly auth: CheckedMcpOAuth;
  /** The toolset's name. */
  readonly toolset: string;
  /** The server's MCP endpoint. */
  readonly serverUrl: URL;
  /** The server as messages name it (its URL without query). */
  readonly serverDescription: string;
  /** The principal whose tokens these are (`perPrincipal`), or undefined: shared. */
  readonly principal: string | undefined;
  readonly log: (message: string) => void;
}

/** An authorization-code flow under way, as kept in the store. */
interface Pending {
  readonly codeVerifier: string;
  readonly state: string;
  /** The authorization URL, to show again. */
  readonly url?: string;
}

/**
 * One toolset's OAuth client for one principal (or for all), on the MCP SDK's `auth()`: the
 * SDK's `OAuthClientProvider`, keeping registrations, tokens and the flow under way in the store,
 * encrypted. Handed to the Streamable HTTP transport (`authProvider`), which signs every request,
 * and on a 401 or a 403 `insufficient_scope` runs `auth()`: discovery, registration, PKCE, token
 * requests, refresh. When a person must sign in, `redirectToAuthorization` notes the URL; the
 * connection then calls `finishSignIn`, which asks the `authorize` hook and exchanges the code.
 */
export class McpOAuthSession implements OAuthClientProvider {
  readonly #options: McpOAuthSessionOptions;
  /** The store key of the server: `mcp:TOOLSET URL`. */
  readonly #server: string;
  readonly #principal: string;
  /** The sign-in the SDK last asked to start (its URL), not yet handled. */
  #authorizationUrl: { readonly url: URL; readonly pending: Pending } | undefined;
  /** The PKCE verifiers of authorization URLs being built (the SDK may build two at once: a POST's and the stream's). */
  #verifiers: string[] = [];
  #discovery: OAuthDiscoveryState | undefined;
  /** The authorization server a pre-registered client was first used with. */
  #boundIssuer: string | undefined;
  /**
   * The server asked for more scope (a 403 `insufficient_scope`): until new tokens come, the stored
   * refresh token is not offered, so that the SDK signs in again with the scope asked for rather
   * than refreshing the token that lacks it.
   */
  #steppingUp = false;
  /** The sign-in whose code is being exchanged now (its verifier is the one to send). */
  #exchanging: Pending | undefined;
  readonly addClientAuthentication?: AddClientAuthentication;

  constructor(options: McpOAuthSessionOptions) {
    this.#options = options;
    this.#server = `mcp:${options.toolset} ${options.serverDescription}`;
    this.#principal = options.auth.perPrincipal ? (options.principal ?? '') : '';
    const { clientId, privateKey, signingAlgorithm } = options.auth;
    if (privateKey !== undefined && clientId !== undefined) {
      this.addClientAuthentication = createPrivateKeyJwtAuth({
        issuer: clientId,
        subject: clientId,
        privateKey,
        alg: signingAlgorithm,
      });
    }
  }

  /** How messages name this sign-in: the server, and the principal when per principal. */
  get description(): string {
    const whose = this.#options.auth.perPrincipal ? ` for principal ${this.#principal}` : '';
    return `MCP server ${this.#options.toolset} (${this.#options.serverDescription})${whose}`;
  }

  get redirectUrl(): string | undefined {
    return this.#options.auth.grant === 'authorization_code' ? this.#options.auth.redirectUrl : undefined;
  }

  get clientMetadataUrl(): string | undefined {
    return this.#options.auth.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    const { grant, redirectUrl, clientName, scope, tokenEndpointAuthMethod } = this.#options.auth;
    const code = grant === 'authorization_code';
    return {
      client_name: clientName,
      redirect_uris: code && redirectUrl !== undefined ? [redirectUrl] : [],
      grant_types: code ? ['authorization_code', 'refresh_token'] : ['client_credentials'],
      response_types: code ? ['code'] : [],
      ...(scope === undefined ? {} : { scope }),
      ...(tokenEndpointAuthMethod === undefined ? {} : { token_endpoint_auth_method: tokenEndpointAuthMethod }),
    };
  }

  state(): string {
    return randomBytes(24).toString('base64url');
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const { clientId, clientSecret, issuer } = this.#options.auth;
    if (clientId !== undefined) {
      const bound = issuer ?? this.#boundIssuer;
      return {
        client_id: clientId,
        ...(clientSecret === undefined ? {} : { client_secret: clientSecret }),
        ...(bound === undefined ? {} : { issuer: bound }),
      } as OAuthClientInformationMixed;
    }
    return this.#read<OAuthClientInformationMixed>('client', '');
  }

  async saveClientInformation(information: OAuthClientInformationMixed): Promise<void> {
    if (this.#options.auth.clientId !== undefined) {
      // A pre-registered client: its secret stays in the configuration; only where it was used is noted.
      const issuer = (information as { issuer?: unknown }).issuer;
      if (typeof issuer === 'string') this.#boundIssuer = issuer;
      return;
    }
    await this.#write('client', '', information);
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    const tokens = await this.#read<OAuthTokens>('tokens', this.#principal);
    if (tokens === undefined || !this.#steppingUp) return tokens;
    const { refresh_token: _refresh, ...rest } = tokens;
    return rest;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    this.#steppingUp = false;
    await this.#write('tokens', this.#principal, tokens);
  }

  /** `fetchFunction`, noticing when the server asks for more scope (see `#steppingUp`). */
  observe(fetchFunction: FetchLike): FetchLike {
    return async (url, init) => {
      const response = await fetchFunction(url, init);
      if (response.status === 403 && /insufficient_scope/.test(response.headers.get('www-authenticate') ?? '')) {
        this.#steppingUp = true;
      }
      return response;
    };
  }

  /** Notes the sign-in to finish (`finishSignIn`) with its verifier: the one whose S256 challenge the URL carries. */
  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    const challenge = authorizationUrl.searchParams.get('code_challenge');
    const index = this.#verifiers.findIndex(
      (verifier) => createHash('sha256').update(verifier).digest('base64url') === challenge,
    );
    const codeVerifier = this.#verifiers[index];
    if (codeVerifier === undefined)
      throw new Error(`${this.description}: the authorization URL has no PKCE challenge of ours`);
    this.#verifiers.splice(index, 1);
    const pending: Pending = {
      codeVerifier,
      state: authorizationUrl.searchParams.get('state') ?? '',
      url: authorizationUrl.href,
    };
    await this.#write('pending', this.#principal, pending);
    this.#authorizationUrl = { url: authorizationUrl, pending };
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.#verifiers.push(codeVerifier);
    if (this.#verifiers.length > 8) this.#verifiers.shift();
  }

  async codeVerifier(): Promise<string> {
    const pending = this.#exchanging ?? (await this.#read<Pending>('pending', this.#principal));
    if (pending === undefined) throw new Error(`${this.description}: no sign-in is under way`);
    return pending.codeVerifier;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'all' || scope === 'discovery') this.#discovery = undefined;
    const kinds: OAuthCredentialKind[] = [];
    if (scope === 'all' || scope === 'tokens') kinds.push('tokens');
    if (scope === 'all' || scope === 'verifier') kinds.push('pending');
    if (kinds.length > 0) {
      await this.#options.auth.store.deleteOAuthCredentials({
        server: this.#server,
        principal: this.#principal,
        kinds,
      });
    }
    if ((scope === 'all' || scope === 'client') && this.#options.auth.clientId === undefined) {
      await this.#options.auth.store.deleteOAuthCredentials({ server: this.#server, principal: '', kinds: ['client'] });
    }
    this.#options.log(`${this.description}: the authorization server refused the stored OAuth ${scope}; dropped`);
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.#discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#discovery;
  }

  prepareTokenRequest(scope?: string): URLSearchParams | undefined {
    if (this.#options.auth.grant !== 'client_credentials') return undefined;
    const parameters = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scope !== undefined && scope !== '') parameters.set('scope', scope);
    return parameters;
  }

  /**
   * After a request was refused for want of a sign-in: when the SDK started the code flow (it
   * asked to open an authorization URL), ask the `authorize` hook; with the callback's code, get
   * the tokens and resolve true (send the request again). Resolves false when no sign-in was
   * started (the failure is something else). Rejects with `McpAuthorizationRequiredError` when the
   * hook (or its absence) leaves it to a person and `completeAuthorization`.
   */
  async finishSignIn(): Promise<boolean> {
    const started = this.#authorizationUrl;
    if (started === undefined) return false;
    this.#authorizationUrl = undefined;
    const { url, pending } = started;
    const hook = this.#options.auth.authorize;
    const principal = this.#options.auth.perPrincipal ? this.#principal : undefined;
    const result =
      hook === undefined
        ? undefined
        : await hook({
            url,
            state: pending.state,
            toolset: this.#options.toolset,
            server: this.#options.serverDescription,
            ...(principal === undefined ? {} : { principal }),
          });
    if (result === undefined || result === null) {
      // The sign-in the URL shown belongs to is the one `completeAuthorization` finishes (another may have been written since).
      await this.#write('pending', this.#principal, pending);
      const message = `${this.description}: needs authorization: a person must open ${url.href} and sign in; then give the callback's code and state to completeAuthorization`;
      this.#options.log(message);
      throw new McpAuthorizationRequiredError(message, {
        url: url.href,
        toolset: this.#options.toolset,
        state: pending.state,
        ...(principal === undefined ? {} : { principal }),
      });
    }
    await this.complete(result, pending);
    return true;
  }

  /**
   * Finishes the sign-in under way with the callback's `code` and `state`: the state must be the
   * one sent (a stale or forged callback is refused), then the code is exchanged (with the PKCE
   * verifier) for tokens, kept in the store.
   */
  async complete(result: McpAuthorizationResult, started?: Pending): Promise<void> {
    const pending = started ?? (await this.#read<Pending>('pending', this.#principal));
    if (pending === undefined) throw new Error(`${this.description}: no sign-in is under way`);
    if (typeof result.code !== 'string' || result.code === '' || result.state !== pending.state) {
      throw new Error(
        `${this.description}: the callback's state does not match the sign-in under way (a stale or forged callback): refused`,
      );
    }
    this.#exchanging = pending;
    let outcome: string;
    try {
      outcome = await auth(this, {
        serverUrl: this.#options.serverUrl,
        authorizationCode: result.code,
        ...(this.#discovery?.resourceMetadataUrl === undefined
          ? {}
          : { resourceMetadataUrl: new URL(this.#discovery.resourceMetadataUrl) }),
      });
    } finally {
      this.#exchanging = undefined;
    }
    if (outcome !== 'AUTHORIZED') throw new Error(`${this.description}: the authorization code was not accepted`);
    await this.#options.auth.store.deleteOAuthCredentials({
      server: this.#server,
      principal: this.#principal,
      kinds: ['pending'],
    });
    this.#options.log(`${this.description}: signed in`);
  }

  /** The authorization URL of the sign-in under way (to show again), or undefined. */
  async pendingUrl(): Promise<string | undefined> {
    return (await this.#read<Pending>('pending', this.#principal))?.url;
  }

  async #read<T>(kind: OAuthCredentialKind, principal: string): Promise<T | undefined> {
    const row = await this.#options.auth.store.getOAuthCredential({ server: this.#server, principal, kind });
    if (row === undefined) return undefined;
    return JSON.parse(this.#options.auth.box.open(row.value, this.#context(kind, principal))) as T;
  }

  async #write(kind: OAuthCredentialKind, principal: string, value: unknown): Promise<void> {
    await this.#options.auth.store.putOAuthCredential({
      server: this.#server,
      principal,
      kind,
      value: this.#options.auth.box.seal(JSON.stringify(value), this.#context(kind, principal)),
      updatedAt: Date.now(),
    });
  }

  #context(kind: OAuthCredentialKind, principal: string): string {
    return `${this.#server}\u0000${principal}\u0000${kind}`;
  }
}

/**
 * Why a request failed for want of OAuth, readable and without secrets (the SDK's errors carry
 * the authorization server's `error` and `error_description`, never a token), or undefined when
 * `cause` (or what it wraps) is no OAuth failure.
 */
export function describeOAuthFailure(cause: unknown): string | undefined {
  for (let current = cause, depth = 0; current instanceof Error && depth < 5; depth++) {
    if (McpAuthorizationRequiredError.isInstance(current)) return 'it needs a person to sign in (OAuth)';
    if (current instanceof OAuthError) {
      return `OAuth failed: the authorization server answered ${current.errorCode}${current.message === '' ? '' : `: ${current.message}`}`;
    }
    if (current instanceof UnauthorizedError) return `OAuth failed: ${current.message || 'unauthorized'}`;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Whether `cause` (or what it wraps) is the SDK's `UnauthorizedError`: a sign-in may be under way. */
export function isUnauthorized(cause: unknown): boolean {
  for (let current = cause, depth = 0; current instanceof Error && depth < 5; depth++) {
    if (current instanceof UnauthorizedError) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
