/**
 * What an OAuth credential row holds: `client` (a client registration, dynamic or pre-registered
 * and bound to its authorization server), `tokens` (access and refresh tokens), `pending` (an
 * authorization-code flow under way: its PKCE verifier and state).
 */
export type OAuthCredentialKind = 'client' | 'tokens' | 'pending';

/** Which credential: of one server (as its toolset names it), one principal ('' for all), one kind. */
export interface OAuthCredentialKey {
  readonly server: string;
  /** The principal the credential belongs to, or '' when the toolset shares it among principals. */
  readonly principal: string;
  readonly kind: OAuthCredentialKind;
}

/** A credential as stored: `value` is opaque to the store (the toolsets encrypt it before). */
export interface StoredOAuthCredential extends OAuthCredentialKey {
  readonly value: string;
  readonly updatedAt: number;
}

/**
 * The OAuth credentials MCP toolsets keep for remote servers (`mcpToolset({ url, auth })`). The
 * store keeps what it is given: the toolsets encrypt `value` (AES-256-GCM) before, so no token is
 * in clear on disk. Each write is on disk when it resolves; reads never wait for queued run writes.
 */
export interface OAuthStore {
  /** The credential with this key, or undefined. */
  getOAuthCredential(key: OAuthCredentialKey): Promise<StoredOAuthCredential | undefined>;
  /** Inserts the credential, or replaces the one with its key. */
  putOAuthCredential(credential: StoredOAuthCredential): Promise<void>;
  /**
   * Deletes a server's credentials: of one principal if given ('' the shared ones), of these kinds
   * if given; otherwise all of them.
   * @returns how many were deleted.
   */
  deleteOAuthCredentials(filter: {
    readonly server: string;
    readonly principal?: string;
    readonly kinds?: readonly OAuthCredentialKind[];
  }): Promise<number>;
}

const KINDS: readonly OAuthCredentialKind[] = ['client', 'tokens', 'pending'];

/** Whether `kind` is a credential kind (a row of another kind is a corrupt row). */
export function isOAuthCredentialKind(kind: unknown): kind is OAuthCredentialKind {
  return KINDS.includes(kind as OAuthCredentialKind);
}

/** The row of a credential, as both SQL dialects name its columns. */
export interface OAuthCredentialColumns {
  server: string;
  principal: string;
  kind: string;
  value: string;
  updated_at: number | string;
}

/** A credential from its row. */
export function oauthCredentialFrom(row: OAuthCredentialColumns): StoredOAuthCredential {
  return {
    server: row.server,
    principal: row.principal,
    kind: row.kind as OAuthCredentialKind,
    value: row.value,
    updatedAt: Number(row.updated_at),
  };
}
