import type Database from 'better-sqlite3';
import { StoreError } from '../../errors.js';
import type { OAuthStore } from '../oauth-store.js';
import {
  type OAuthCredentialColumns,
  type OAuthCredentialKey,
  type OAuthCredentialKind,
  oauthCredentialFrom,
  type StoredOAuthCredential,
} from '../oauth-store.js';
import type { SqliteExecutor } from './sqlite-executor.js';

/** The OAuth credentials MCP toolsets keep, as SQLite statements (see `OAuthStore`). */
export interface SqliteOAuth {
  get(key: OAuthCredentialKey): StoredOAuthCredential | undefined;
  put(credential: StoredOAuthCredential): void;
  delete(filter: {
    readonly server: string;
    readonly principal?: string;
    readonly kinds?: readonly OAuthCredentialKind[];
  }): number;
}

/** Prepares the statements (on a migrated database). */
export function prepareOAuth(database: Database.Database): SqliteOAuth {
  const get = database.prepare<[string, string, string], OAuthCredentialColumns>(
    'SELECT * FROM oauth_credentials WHERE server = ? AND principal = ? AND kind = ?',
  );
  const put = database.prepare<[string, string, string, string, number]>(
    `INSERT INTO oauth_credentials (server, principal, kind, value, updated_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (server, principal, kind) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
  );
  const remove = database.prepare<[{ server: string; principal: string | null; kinds: string | null }]>(
    `DELETE FROM oauth_credentials WHERE server = @server AND (@principal IS NULL OR principal = @principal)
       AND (@kinds IS NULL OR kind IN (SELECT value FROM json_each(@kinds)))`,
  );
  return {
    get: (key) => {
      const row = get.get(key.server, key.principal, key.kind);
      return row === undefined ? undefined : oauthCredentialFrom(row);
    },
    put: (credential) => {
      put.run(credential.server, credential.principal, credential.kind, credential.value, credential.updatedAt);
    },
    delete: (filter) =>
      remove.run({
        server: filter.server,
        principal: filter.principal ?? null,
        kinds: filter.kinds === undefined ? null : JSON.stringify(filter.kinds),
      }).changes,
  };
}

/** OAuth credentials on SQLite, as the store's part: they never wait for queued run writes. */
export class SqliteOAuthStore implements OAuthStore {
  readonly #executor: SqliteExecutor;
  readonly #statements: () => SqliteOAuth;

  constructor(executor: SqliteExecutor) {
    this.#executor = executor;
    this.#statements = executor.statements(prepareOAuth);
  }

  async getOAuthCredential(key: OAuthCredentialKey): Promise<StoredOAuthCredential | undefined> {
    return this.#executor.readNow(`reading the OAuth ${key.kind} of ${key.server}`, () => this.#statements().get(key));
  }

  async putOAuthCredential(credential: StoredOAuthCredential): Promise<void> {
    if (!Number.isSafeInteger(credential.updatedAt)) {
      throw new StoreError(`OAuth ${credential.kind} of ${credential.server}: updatedAt must be an integer time in ms`);
    }
    await this.#executor.writeNowResult(`writing the OAuth ${credential.kind} of ${credential.server}`, () =>
      this.#statements().put(credential),
    );
  }

  async deleteOAuthCredentials(filter: {
    readonly server: string;
    readonly principal?: string;
    readonly kinds?: readonly OAuthCredentialKind[];
  }): Promise<number> {
    return this.#executor.writeNowResult(`deleting OAuth credentials of ${filter.server}`, () =>
      this.#statements().delete(filter),
    );
  }
}
