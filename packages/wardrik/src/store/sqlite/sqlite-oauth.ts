import type Database from 'better-sqlite3';
import {
  type OAuthCredentialColumns,
  type OAuthCredentialKey,
  type OAuthCredentialKind,
  oauthCredentialFrom,
  type StoredOAuthCredential,
} from '../oauth-store.js';

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
