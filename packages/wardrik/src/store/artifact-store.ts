import type { Artifact, ArtifactInfo, Label } from '@wardrik/core';

/**
 * Where artifacts live: `session:<id>` (a session's), `user:<app>:<principal>` (`user:` names,
 * the principal's in every session of the app), `run:<id>` (a run without a session).
 */
export type ArtifactScopeId = string;

/** A version to store. */
export interface ArtifactSave {
  readonly scope: ArtifactScopeId;
  readonly name: string;
  readonly mediaType: string;
  readonly data: Uint8Array;
  readonly labels: readonly Label[];
  readonly savedAt: number;
  readonly savedBy: string;
  /**
   * Makes the save happen once: a save with a key already stored for this scope and name stores
   * nothing and resolves to the version stored then (a call's idempotency key and its place).
   */
  readonly key?: string;
}

/** Named files, each save a new version (1, 2, …), with the labels of what saved them. */
export interface ArtifactStore {
  /** Stores the next version of the name (durably, when it resolves), or finds the one its `key` saved. */
  saveArtifact(save: ArtifactSave): Promise<ArtifactInfo>;
  /** The latest version, or `version`; undefined if there is none. */
  loadArtifact(scope: ArtifactScopeId, name: string, version?: number): Promise<Artifact | undefined>;
  /** The latest version of every name in these scopes, by name. */
  listArtifacts(scopes: readonly ArtifactScopeId[]): Promise<ArtifactInfo[]>;
  /** Every version of a name, oldest first. */
  artifactVersions(scope: ArtifactScopeId, name: string): Promise<ArtifactInfo[]>;
  /** Sets the labels of a version (labels only ever grow: the caller passes the old ones and the new). */
  labelArtifact(scope: ArtifactScopeId, name: string, version: number, labels: readonly Label[]): Promise<void>;
  /** Deletes every version of a name; resolves to how many there were. */
  deleteArtifact(scope: ArtifactScopeId, name: string): Promise<number>;
}

/** The scope an artifact name lives in: `user:` names the principal's, others the session's (or the run's, without a session). */
export function artifactScopeOf(
  name: string,
  owner: { readonly app: string; readonly principal: string; readonly sessionId?: string; readonly runId?: string },
): ArtifactScopeId {
  if (name.startsWith('user:')) return `user:${owner.app}:${owner.principal}`;
  if (owner.sessionId !== undefined) return `session:${owner.sessionId}`;
  if (owner.runId !== undefined) return `run:${owner.runId}`;
  throw new TypeError(
    `artifact ${JSON.stringify(name)}: no session to keep it in (name it user:… to keep it with the principal)`,
  );
}

/** The scopes a run (or session) sees artifacts of: its session's (or run's) and its principal's. */
export function artifactScopesOf(owner: {
  readonly app: string;
  readonly principal: string;
  readonly sessionId?: string;
  readonly runId?: string;
}): ArtifactScopeId[] {
  const own =
    owner.sessionId !== undefined
      ? `session:${owner.sessionId}`
      : owner.runId !== undefined
        ? `run:${owner.runId}`
        : undefined;
  return [...(own === undefined ? [] : [own]), `user:${owner.app}:${owner.principal}`];
}
