import { StoreError } from '../../errors.js';
import type { OAuthCredentialKey, OAuthCredentialKind, OAuthStore, StoredOAuthCredential } from '../oauth-store.js';
import * as oauth from './oauth-queries.js';
import type { PostgresExecutor } from './postgres-executor.js';

/** The OAuth credentials MCP toolsets keep, on PostgreSQL. */
export class PostgresOAuth implements OAuthStore {
  readonly #executor: PostgresExecutor;

  constructor(executor: PostgresExecutor) {
    this.#executor = executor;
  }

  async getOAuthCredential(key: OAuthCredentialKey): Promise<StoredOAuthCredential | undefined> {
    return this.#executor.call(
      `reading the OAuth ${key.kind} of ${key.server}`,
      (client) => oauth.getOAuthCredential(client, key),
      {
        retry: true,
      },
    );
  }

  async putOAuthCredential(credential: StoredOAuthCredential): Promise<void> {
    if (!Number.isSafeInteger(credential.updatedAt)) {
      throw new StoreError(`OAuth ${credential.kind} of ${credential.server}: updatedAt must be an integer time in ms`);
    }
    // Replacing a row with the same value is safe to repeat.
    await this.#executor.call(
      `writing the OAuth ${credential.kind} of ${credential.server}`,
      (client) => oauth.putOAuthCredential(client, credential),
      { retry: true },
    );
  }

  async deleteOAuthCredentials(filter: {
    readonly server: string;
    readonly principal?: string;
    readonly kinds?: readonly OAuthCredentialKind[];
  }): Promise<number> {
    return this.#executor.call(
      `deleting OAuth credentials of ${filter.server}`,
      (client) => oauth.deleteOAuthCredentials(client, filter),
      { retry: true },
    );
  }
}
