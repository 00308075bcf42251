import type { Artifact, ArtifactInfo, Label } from '@wardrik/core';
import type { ArtifactSave, ArtifactScopeId, ArtifactStore } from './artifact-store.js';
import { coversApp, type PurgeArtifactsQuery } from './retention-store.js';

interface Version {
  readonly info: ArtifactInfo;
  readonly data: Uint8Array;
  readonly key?: string;
}

/** Artifacts kept in this process's memory (the memory store's). */
export class ProcessArtifacts implements ArtifactStore {
  readonly #check: () => void;
  /** Versions by scope and name, oldest first. */
  readonly #artifacts = new Map<ArtifactScopeId, Map<string, Version[]>>();

  constructor(options: { check: () => void }) {
    this.#check = options.check;
  }

  async saveArtifact(save: ArtifactSave): Promise<ArtifactInfo> {
    this.#check();
    let names = this.#artifacts.get(save.scope);
    if (!names) {
      names = new Map();
      this.#artifacts.set(save.scope, names);
    }
    const versions = names.get(save.name) ?? [];
    names.set(save.name, versions);
    const saved = save.key === undefined ? undefined : versions.find((version) => version.key === save.key);
    if (saved) return copy(saved.info);
    const info: ArtifactInfo = {
      name: save.name,
      version: (versions.at(-1)?.info.version ?? 0) + 1,
      mediaType: save.mediaType,
      size: save.data.byteLength,
      labels: [...save.labels],
      savedAt: save.savedAt,
      savedBy: save.savedBy,
    };
    versions.push({ info, data: new Uint8Array(save.data), ...(save.key === undefined ? {} : { key: save.key }) });
    return copy(info);
  }

  async loadArtifact(scope: ArtifactScopeId, name: string, version?: number): Promise<Artifact | undefined> {
    this.#check();
    const versions = this.#artifacts.get(scope)?.get(name) ?? [];
    const found = version === undefined ? versions.at(-1) : versions.find((each) => each.info.version === version);
    return found ? { ...copy(found.info), data: new Uint8Array(found.data) } : undefined;
  }

  async listArtifacts(scopes: readonly ArtifactScopeId[]): Promise<ArtifactInfo[]> {
    this.#check();
    return scopes
      .flatMap((scope) => [...(this.#artifacts.get(scope)?.values() ?? [])])
      .flatMap((versions) => {
        const latest = versions.at(-1);
        return latest ? [copy(latest.info)] : [];
      })
      .sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
  }

  async artifactVersions(scope: ArtifactScopeId, name: string): Promise<ArtifactInfo[]> {
    this.#check();
    return (this.#artifacts.get(scope)?.get(name) ?? []).map((version) => copy(version.info));
  }

  async labelArtifact(scope: ArtifactScopeId, name: string, version: number, labels: readonly Label[]): Promise<void> {
    this.#check();
    const versions = this.#artifacts.get(scope)?.get(name) ?? [];
    const index = versions.findIndex((each) => each.info.version === version);
    const found = versions[index];
    if (found) versions[index] = { ...found, info: { ...found.info, labels: [...labels] } };
  }

  async deleteArtifact(scope: ArtifactScopeId, name: string): Promise<number> {
    this.#check();
    const names = this.#artifacts.get(scope);
    const count = names?.get(name)?.length ?? 0;
    names?.delete(name);
    return count;
  }

  /**
   * Deletes up to `limit` versions beyond the newest `keepVersions` of their name, in the scopes
   * of the selected apps (`appOf` gives a scope's app); returns how many.
   */
  purgeVersions(query: PurgeArtifactsQuery, appOf: (scope: ArtifactScopeId) => string | undefined): number {
    this.#check();
    let purged = 0;
    for (const [scope, names] of this.#artifacts) {
      if (!coversApp(query.apps, appOf(scope))) continue;
      for (const versions of names.values()) {
        const newest = versions.at(-1)?.info.version ?? 0;
        while (
          purged < query.limit &&
          versions.length > 0 &&
          (versions[0]?.info.version ?? 0) <= newest - query.keepVersions
        ) {
          versions.shift();
          purged += 1;
        }
        if (purged >= query.limit) return purged;
      }
    }
    return purged;
  }

  /** Deletes every artifact of a scope (a deleted session's). */
  deleteScope(scope: ArtifactScopeId): void {
    this.#artifacts.delete(scope);
  }
}

function copy(info: ArtifactInfo): ArtifactInfo {
  return { ...info, labels: [...info.labels] };
}
