import type { Artifact, ArtifactInfo } from '@wardrik/core';
import type pg from 'pg';
import type { ArtifactSave, ArtifactScopeId } from '../artifact-store.js';

/*
 * Artifacts on PostgreSQL: bytes in bytea. A save takes a transaction-level advisory lock on its
 * scope and name, so that of two saves at once (on any node) each gets a version of its own.
 */

interface ArtifactColumns {
  readonly name: string;
  readonly version: number;
  readonly media_type: string;
  readonly size: string;
  readonly labels: string;
  readonly saved_at: string;
  readonly saved_by: string;
}

const INFO = 'name, version, media_type, size, labels, saved_at, saved_by';

export async function saveArtifact(client: pg.ClientBase, save: ArtifactSave): Promise<ArtifactInfo> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', [
      `wardrik artifact ${save.scope}`,
      save.name,
    ]);
    if (save.key !== undefined) {
      const { rows } = await client.query<ArtifactColumns>(
        `SELECT ${INFO} FROM artifacts WHERE scope = $1 AND name = $2 AND save_key = $3`,
        [save.scope, save.name, save.key],
      );
      if (rows[0]) {
        await client.query('COMMIT');
        return infoFrom(rows[0]);
      }
    }
    const { rows } = await client.query<ArtifactColumns>(
      `INSERT INTO artifacts (scope, name, version, media_type, size, data, labels, saved_at, saved_by, save_key)
       VALUES ($1, $2, (SELECT coalesce(max(version), 0) + 1 FROM artifacts WHERE scope = $1 AND name = $2),
               $3, $4, $5, $6, $7, $8, $9)
       RETURNING ${INFO}`,
      [
        save.scope,
        save.name,
        save.mediaType,
        save.data.byteLength,
        Buffer.from(save.data.buffer, save.data.byteOffset, save.data.byteLength),
        JSON.stringify(save.labels),
        save.savedAt,
        save.savedBy,
        save.key ?? null,
      ],
    );
    await client.query('COMMIT');
    return infoFrom(rows[0] as ArtifactColumns);
  } catch (cause) {
    await client.query('ROLLBACK').catch(() => {});
    throw cause;
  }
}

export async function loadArtifact(
  client: pg.ClientBase,
  scope: ArtifactScopeId,
  name: string,
  version: number | undefined,
): Promise<Artifact | undefined> {
  const { rows } = await client.query<ArtifactColumns & { data: Buffer }>(
    `SELECT ${INFO}, data FROM artifacts WHERE scope = $1 AND name = $2 AND ($3::integer IS NULL OR version = $3)
     ORDER BY version DESC LIMIT 1`,
    [scope, name, version ?? null],
  );
  const row = rows[0];
  return row ? { ...infoFrom(row), data: new Uint8Array(row.data) } : undefined;
}

export async function listArtifacts(
  client: pg.ClientBase,
  scopes: readonly ArtifactScopeId[],
): Promise<ArtifactInfo[]> {
  const { rows } = await client.query<ArtifactColumns>(
    `SELECT DISTINCT ON (scope, name) ${INFO} FROM artifacts WHERE scope = ANY($1) ORDER BY scope, name, version DESC`,
    [scopes],
  );
  return rows.map(infoFrom).sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
}

export async function artifactVersions(
  client: pg.ClientBase,
  scope: ArtifactScopeId,
  name: string,
): Promise<ArtifactInfo[]> {
  const { rows } = await client.query<ArtifactColumns>(
    `SELECT ${INFO} FROM artifacts WHERE scope = $1 AND name = $2 ORDER BY version`,
    [scope, name],
  );
  return rows.map(infoFrom);
}

export async function labelArtifact(
  client: pg.ClientBase,
  scope: ArtifactScopeId,
  name: string,
  version: number,
  labels: readonly string[],
): Promise<void> {
  await client.query('UPDATE artifacts SET labels = $4 WHERE scope = $1 AND name = $2 AND version = $3', [
    scope,
    name,
    version,
    JSON.stringify(labels),
  ]);
}

export async function deleteArtifact(client: pg.ClientBase, scope: ArtifactScopeId, name: string): Promise<number> {
  const { rowCount } = await client.query('DELETE FROM artifacts WHERE scope = $1 AND name = $2', [scope, name]);
  return rowCount ?? 0;
}

function infoFrom(row: ArtifactColumns): ArtifactInfo {
  return {
    name: row.name,
    version: row.version,
    mediaType: row.media_type,
    size: Number(row.size),
    labels: JSON.parse(row.labels) as string[],
    savedAt: Number(row.saved_at),
    savedBy: row.saved_by,
  };
}
