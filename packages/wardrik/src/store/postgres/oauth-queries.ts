import type pg from 'pg';
import {
  type OAuthCredentialColumns,
  type OAuthCredentialKey,
  type OAuthCredentialKind,
  oauthCredentialFrom,
  type StoredOAuthCredential,
} from '../oauth-store.js';

/* The OAuth credentials MCP toolsets keep: one statement each, each its own transaction. */

export async function getOAuthCredential(
  client: pg.ClientBase,
  key: OAuthCredentialKey,
): Promise<StoredOAuthCredential | undefined> {
  const { rows } = await client.query<OAuthCredentialColumns>({
    name: 'wardrik_get_oauth_credential_v1',
    text: 'SELECT * FROM oauth_credentials WHERE server = $1 AND principal = $2 AND kind = $3',
    values: [key.server, key.principal, key.kind],
  });
  return rows[0] === undefined ? undefined : oauthCredentialFrom(rows[0]);
}

export async function putOAuthCredential(client: pg.ClientBase, credential: StoredOAuthCredential): Promise<void> {
  await client.query({
    name: 'wardrik_put_oauth_credential_v1',
    text: `INSERT INTO oauth_credentials (server, principal, kind, value, updated_at) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (server, principal, kind) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
    values: [credential.server, credential.principal, credential.kind, credential.value, credential.updatedAt],
  });
}

export async function deleteOAuthCredentials(
  client: pg.ClientBase,
  filter: { readonly server: string; readonly principal?: string; readonly kinds?: readonly OAuthCredentialKind[] },
): Promise<number> {
  const result = await client.query({
    name: 'wardrik_delete_oauth_credentials_v1',
    text: `DELETE FROM oauth_credentials WHERE server = $1 AND ($2::text IS NULL OR principal = $2)
             AND ($3::text[] IS NULL OR kind = ANY ($3::text[]))`,
    values: [filter.server, filter.principal ?? null, filter.kinds === undefined ? null : [...filter.kinds]],
  });
  return result.rowCount ?? 0;
}
