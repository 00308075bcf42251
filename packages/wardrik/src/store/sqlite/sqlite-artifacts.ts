import type { Artifact, ArtifactInfo } from '@wardrik/core';
import type Database from 'better-sqlite3';
import type { ArtifactSave, ArtifactScopeId, ArtifactStore } from '../artifact-store.js';
import type { SqliteExecutor } from './sqlite-executor.js';

interface ArtifactColumns {
  readonly scope: string;
  readonly name: string;
  readonly version: number;
  readonly media_type: string;
  readonly size: number;
  readonly labels: string;
  readonly saved_at: number;
  readonly saved_by: string;
}

const INFO = 'scope, name, version, media_type, size, labels, saved_at, saved_by';

/** Artifacts on SQLite (bytes in BLOBs): synchronous functions, run by the store inside its reads and writes. */
export interface SqliteArtifacts {
  saveArtifact(save: ArtifactSave): ArtifactInfo;
  loadArtifact(scope: ArtifactScopeId, name: string, version?: number): Artifact | undefined;
  listArtifacts(scopes: readonly ArtifactScopeId[]): ArtifactInfo[];
  artifactVersions(scope: ArtifactScopeId, name: string): ArtifactInfo[];
  deleteArtifact(scope: ArtifactScopeId, name: string): number;
  labelArtifact(scope: ArtifactScopeId, name: string, version: number, labels: readonly string[]): void;
  /** Deletes every artifact of a scope (a deleted session's). */
  deleteScope(scope: ArtifactScopeId): void;
}

/** Prepares the statements of artifacts (the schema is migrated already). */
export function prepareArtifacts(database: Database.Database): SqliteArtifacts {
  const byKey = database.prepare<[string, string, string], ArtifactColumns>(
    `SELECT ${INFO} FROM artifacts WHERE scope = ? AND name = ? AND save_key = ?`,
  );
  const nextVersion = database.prepare<[string, string], { version: number }>(
    'SELECT coalesce(max(version), 0) + 1 AS version FROM artifacts WHERE scope = ? AND name = ?',
  );
  const insert = database.prepare<
    [string, string, number, string, number, Uint8Array, string, number, string, string | null]
  >(
    `INSERT INTO artifacts (scope, name, version, media_type, size, data, labels, saved_at, saved_by, save_key)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const latest = database.prepare<[string, string], ArtifactColumns & { data: Buffer }>(
    `SELECT ${INFO}, data FROM artifacts WHERE scope = ? AND name = ? ORDER BY version DESC LIMIT 1`,
  );
  const oneVersion = database.prepare<[string, string, number], ArtifactColumns & { data: Buffer }>(
    `SELECT ${INFO}, data FROM artifacts WHERE scope = ? AND name = ? AND version = ?`,
  );
  const latestOfScope = database.prepare<[string], ArtifactColumns>(
    `SELECT ${INFO} FROM artifacts a WHERE scope = ?
       AND version = (SELECT max(version) FROM artifacts b WHERE b.scope = a.scope AND b.name = a.name)
     ORDER BY name`,
  );
  const versions = database.prepare<[string, string], ArtifactColumns>(
    `SELECT ${INFO} FROM artifacts WHERE scope = ? AND name = ? ORDER BY version`,
  );
  const remove = database.prepare<[string, string]>('DELETE FROM artifacts WHERE scope = ? AND name = ?');
  const relabel = database.prepare<[string, string, string, number]>(
    'UPDATE artifacts SET labels = ? WHERE scope = ? AND name = ? AND version = ?',
  );
  const removeScope = database.prepare<[string]>('DELETE FROM artifacts WHERE scope = ?');

  const save = database.transaction((artifact: ArtifactSave): ArtifactInfo => {
    if (artifact.key !== undefined) {
      const found = byKey.get(artifact.scope, artifact.name, artifact.key);
      if (found) return infoFrom(found);
    }
    const version = (nextVersion.get(artifact.scope, artifact.name) as { version: number }).version;
    const labels = JSON.stringify(artifact.labels);
    insert.run(
      artifact.scope,
      artifact.name,
      version,
      artifact.mediaType,
      artifact.data.byteLength,
      artifact.data,
      labels,
      artifact.savedAt,
      artifact.savedBy,
      artifact.key ?? null,
    );
    return {
      name: artifact.name,
      version,
      mediaType: artifact.mediaType,
      size: artifact.data.byteLength,
      labels: [...artifact.labels],
      savedAt: artifact.savedAt,
      savedBy: artifact.savedBy,
    };
  });

  return {
    saveArtifact: (artifact) => save.immediate(artifact),
    loadArtifact: (scope, name, version) => {
      const row = version === undefined ? latest.get(scope, name) : oneVersion.get(scope, name, version);
      return row ? { ...infoFrom(row), data: new Uint8Array(row.data) } : undefined;
    },
    listArtifacts: (scopes) =>
      scopes
        .flatMap((scope) => latestOfScope.all(scope).map(infoFrom))
        .sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0)),
    artifactVersions: (scope, name) => versions.all(scope, name).map(infoFrom),
    deleteArtifact: (scope, name) => remove.run(scope, name).changes,
    labelArtifact: (scope, name, version, labels) => {
      relabel.run(JSON.stringify(labels), scope, name, version);
    },
    deleteScope: (scope) => {
      removeScope.run(scope);
    },
  };
}

function infoFrom(row: ArtifactColumns): ArtifactInfo {
  return {
    name: row.name,
    version: row.version,
    mediaType: row.media_type,
    size: row.size,
    labels: JSON.parse(row.labels) as string[],
    savedAt: row.saved_at,
    savedBy: row.saved_by,
  };
}

/** Artifacts on SQLite, as the store's part: they never wait for queued run writes. */
export class SqliteArtifactStore implements ArtifactStore {
  readonly #executor: SqliteExecutor;
  readonly #statements: () => SqliteArtifacts;

  constructor(executor: SqliteExecutor) {
    this.#executor = executor;
    this.#statements = executor.statements(prepareArtifacts);
  }

  saveArtifact(save: ArtifactSave): Promise<ArtifactInfo> {
    return this.#executor.writeNowResult(`saving artifact ${save.name}`, () => this.#statements().saveArtifact(save));
  }

  async loadArtifact(scope: ArtifactScopeId, name: string, version?: number): Promise<Artifact | undefined> {
    return this.#executor.readNow(`loading artifact ${name}`, () =>
      this.#statements().loadArtifact(scope, name, version),
    );
  }

  async listArtifacts(scopes: readonly ArtifactScopeId[]): Promise<ArtifactInfo[]> {
    return this.#executor.readNow('listing artifacts', () => this.#statements().listArtifacts(scopes));
  }

  async artifactVersions(scope: ArtifactScopeId, name: string): Promise<ArtifactInfo[]> {
    return this.#executor.readNow(`listing the versions of artifact ${name}`, () =>
      this.#statements().artifactVersions(scope, name),
    );
  }

  labelArtifact(scope: ArtifactScopeId, name: string, version: number, labels: readonly string[]): Promise<void> {
    return this.#executor.writeNowResult(`labelling artifact ${name}`, () =>
      this.#statements().labelArtifact(scope, name, version, labels),
    );
  }

  deleteArtifact(scope: ArtifactScopeId, name: string): Promise<number> {
    return this.#executor.writeNowResult(`deleting artifact ${name}`, () =>
      this.#statements().deleteArtifact(scope, name),
    );
  }
}
