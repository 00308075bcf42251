import type { Artifact, ArtifactInfo } from '@wardrik/core';
import type { ArtifactSave, ArtifactScopeId, ArtifactStore } from '../artifact-store.js';
import * as artifacts from './artifact-queries.js';
import type { PostgresExecutor } from './postgres-executor.js';

/** Artifacts on PostgreSQL. */
export class PostgresArtifacts implements ArtifactStore {
  readonly #executor: PostgresExecutor;

  constructor(executor: PostgresExecutor) {
    this.#executor = executor;
  }

  async saveArtifact(save: ArtifactSave): Promise<ArtifactInfo> {
    // Not tried again: a save whose commit was lost with the connection may have been stored (one with a key is found again).
    return this.#executor.call(`saving artifact ${save.name}`, (client) => artifacts.saveArtifact(client, save), {
      retry: save.key !== undefined,
    });
  }

  async loadArtifact(scope: ArtifactScopeId, name: string, version?: number): Promise<Artifact | undefined> {
    return this.#executor.call(
      `loading artifact ${name}`,
      (client) => artifacts.loadArtifact(client, scope, name, version),
      {
        retry: true,
      },
    );
  }

  async listArtifacts(scopes: readonly ArtifactScopeId[]): Promise<ArtifactInfo[]> {
    return this.#executor.call('listing artifacts', (client) => artifacts.listArtifacts(client, scopes), {
      retry: true,
    });
  }

  async artifactVersions(scope: ArtifactScopeId, name: string): Promise<ArtifactInfo[]> {
    return this.#executor.call(
      `listing the versions of artifact ${name}`,
      (client) => artifacts.artifactVersions(client, scope, name),
      { retry: true },
    );
  }

  async labelArtifact(scope: ArtifactScopeId, name: string, version: number, labels: readonly string[]): Promise<void> {
    await this.#executor.call(
      `labelling artifact ${name}`,
      (client) => artifacts.labelArtifact(client, scope, name, version, labels),
      { retry: true },
    );
  }

  async deleteArtifact(scope: ArtifactScopeId, name: string): Promise<number> {
    return this.#executor.call(`deleting artifact ${name}`, (client) => artifacts.deleteArtifact(client, scope, name), {
      retry: true,
    });
  }
}
