import { StoreError } from '../../errors.js';
import type { OAuthCredentialKey, OAuthCredentialKind, OAuthStore, StoredOAuthCredential } from '../oauth-store.js';

/** The OAuth credentials MCP toolsets keep, in memory. */
export class MemoryOAuth implements OAuthStore {
  /** OAuth credentials by server, principal and kind (joined by NUL). */
  readonly #oauth = new Map<string, StoredOAuthCredential>();
  readonly #check: () => void;

  constructor(check: () => void) {
    this.#check = check;
  }

  async getOAuthCredential(key: OAuthCredentialKey): Promise<StoredOAuthCredential | undefined> {
    this.#check();
    const found = this.#oauth.get(oauthKey(key));
    return found === undefined ? undefined : { ...found };
  }

  async putOAuthCredential(credential: StoredOAuthCredential): Promise<void> {
    this.#check();
    if (!Number.isSafeInteger(credential.updatedAt)) {
      throw new StoreError(`OAuth ${credential.kind} of ${credential.server}: updatedAt must be an integer time in ms`);
    }
    const { server, principal, kind, value, updatedAt } = credential;
    this.#oauth.set(oauthKey(credential), { server, principal, kind, value, updatedAt });
  }

  async deleteOAuthCredentials(filter: {
    readonly server: string;
    readonly principal?: string;
    readonly kinds?: readonly OAuthCredentialKind[];
  }): Promise<number> {
    this.#check();
    let deleted = 0;
    for (const [key, credential] of this.#oauth) {
      if (credential.server !== filter.server) continue;
      if (filter.principal !== undefined && credential.principal !== filter.principal) continue;
      if (filter.kinds !== undefined && !filter.kinds.includes(credential.kind)) continue;
      this.#oauth.delete(key);
      deleted += 1;
    }
    return deleted;
  }
}

/** The memory store's key of an OAuth credential. */
function oauthKey(key: OAuthCredentialKey): string {
  return `${key.server}\u0000${key.principal}\u0000${key.kind}`;
}
