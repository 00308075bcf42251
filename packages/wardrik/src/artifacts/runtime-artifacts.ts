import type { Artifact, ArtifactInfo, ArtifactSource, Label } from '@wardrik/core';
import { mergeLabels } from '@wardrik/core';
import { ArtifactNotFoundError, ArtifactTooLargeError, InvalidInputError, SessionNotFoundError } from '../errors.js';
import { type ArtifactStore, artifactScopeOf, artifactScopesOf } from '../store/artifact-store.js';
import type { SessionStore } from '../store/session-store.js';
import { artifactNameProblem, normalizeMediaType } from './names.js';

/** The default largest artifact: 10 MiB. */
export const DEFAULT_MAX_ARTIFACT_BYTES = 10 * 1024 * 1024;

/**
 * Where artifacts are kept (ADK's artifact service): versions of named bytes by scope. Wardrik's
 * stores are artifact services (SQLite BLOBs, PostgreSQL bytea, memory); implement it to keep
 * artifacts elsewhere (an object store). The runtime checks names, media types and sizes before
 * anything reaches it.
 */
export type ArtifactService = ArtifactStore;

/** How a person saves an artifact through the runtime (the API, the CLI). */
export interface ArtifactUpload {
  readonly mediaType: string;
  /** Who saves it: kept as `person:<by>`. */
  readonly by: string;
  /** Labels it carries, e.g. `outside` for a file from a stranger. Default none (a person chose to give it). */
  readonly labels?: readonly Label[];
}

/** What the runtime's artifacts need. */
export interface RuntimeArtifactsDeps {
  readonly service: ArtifactService;
  readonly sessions: Pick<SessionStore, 'getSession'>;
  readonly maxBytes: number;
  readonly now: () => number;
}

/**
 * Artifacts as the runtime offers them (`wardrik.artifacts`), by session: a name is the session's,
 * or the session principal's when it starts with `user:`. Every input is checked: a name that is a
 * path or holds control characters, a media type that is not `type/subtype` (`InvalidInputError`),
 * bytes over `maxBytes` (`ArtifactTooLargeError`).
 */
export class RuntimeArtifacts {
  readonly service: ArtifactService;
  /** The largest artifact, in bytes. */
  readonly maxBytes: number;
  readonly #deps: RuntimeArtifactsDeps;

  constructor(deps: RuntimeArtifactsDeps) {
    this.service = deps.service;
    this.maxBytes = deps.maxBytes;
    this.#deps = deps;
  }

  /**
   * Saves bytes as the next version of `name` in a session (or, `user:…`, for its principal).
   *
   * @example
   * ```ts
   * const saved = await wardrik.artifacts.save(session.id, 'contract.pdf', bytes, { mediaType: 'application/pdf', by: 'olga', labels: ['outside'] })
   * // { name: 'contract.pdf', version: 1, mediaType: 'application/pdf', size: 48213, labels: ['outside'], … }
   * ```
   */
  async save(sessionId: string, name: string, data: Uint8Array, upload: ArtifactUpload): Promise<ArtifactInfo> {
    const owner = await this.#owner(sessionId);
    this.#checkName(name);
    const mediaType = input(() => normalizeMediaType(upload.mediaType));
    if (!(data instanceof Uint8Array)) throw new InvalidInputError('data: expected bytes (a Uint8Array)');
    this.checkSize(data.byteLength, name);
    const labels = upload.labels ?? [];
    if (!Array.isArray(labels) || labels.some((label) => typeof label !== 'string' || label === '')) {
      throw new InvalidInputError('labels: expected a list of non-empty strings');
    }
    return this.service.saveArtifact({
      scope: artifactScopeOf(name, owner),
      name,
      mediaType,
      data,
      labels: mergeLabels(labels),
      savedAt: this.#deps.now(),
      savedBy: `person:${upload.by}`,
    });
  }

  /** The latest version of `name` in a session, or `version`; `ArtifactNotFoundError` if there is none. */
  async load(sessionId: string, name: string, options: { version?: number } = {}): Promise<Artifact> {
    const owner = await this.#owner(sessionId);
    this.#checkName(name);
    const version = checkVersion(options.version);
    const found = await this.service.loadArtifact(artifactScopeOf(name, owner), name, version);
    if (!found) {
      throw new ArtifactNotFoundError(
        `session ${sessionId} has no artifact ${JSON.stringify(name)}${version === undefined ? '' : ` version ${version}`}`,
      );
    }
    return found;
  }

  /** The latest version of every artifact of a session and of its principal, by name. */
  async list(sessionId: string): Promise<ArtifactInfo[]> {
    return this.service.listArtifacts(artifactScopesOf(await this.#owner(sessionId)));
  }

  /** Every version of `name` in a session, oldest first; `ArtifactNotFoundError` if there is none. */
  async versions(sessionId: string, name: string): Promise<ArtifactInfo[]> {
    const owner = await this.#owner(sessionId);
    this.#checkName(name);
    const versions = await this.service.artifactVersions(artifactScopeOf(name, owner), name);
    if (versions.length === 0)
      throw new ArtifactNotFoundError(`session ${sessionId} has no artifact ${JSON.stringify(name)}`);
    return versions;
  }

  /** Deletes every version of `name`; `ArtifactNotFoundError` if there is none. */
  async delete(sessionId: string, name: string): Promise<void> {
    const owner = await this.#owner(sessionId);
    this.#checkName(name);
    if ((await this.service.deleteArtifact(artifactScopeOf(name, owner), name)) === 0) {
      throw new ArtifactNotFoundError(`session ${sessionId} has no artifact ${JSON.stringify(name)}`);
    }
  }

  /** Throws `ArtifactTooLargeError` for more than `maxBytes` bytes. */
  checkSize(bytes: number, name: string): void {
    if (bytes > this.maxBytes) {
      throw new ArtifactTooLargeError(
        `artifact ${JSON.stringify(name)} is ${bytes} bytes, over the limit of ${this.maxBytes} (createWardrik artifacts.maxBytes)`,
      );
    }
  }

  /**
   * What a call's `context.artifacts` uses: the run's session's artifacts (a run without a session:
   * its own) and its principal's. A save is keyed by the call's idempotency key and its place among
   * the call's saves, so that a call retried or repeated after a crash stores it once.
   */
  sourceFor(run: {
    readonly runId: string;
    readonly app: string;
    readonly principal: string;
    readonly sessionId?: string | undefined;
    readonly idempotencyKey: string;
  }): ArtifactSource {
    const owner = {
      app: run.app,
      principal: run.principal,
      runId: run.runId,
      ...(run.sessionId === undefined ? {} : { sessionId: run.sessionId }),
    };
    const checked = (name: string): string => {
      const problem = artifactNameProblem(name);
      if (problem !== undefined) throw new TypeError(problem);
      return artifactScopeOf(name, owner);
    };
    return {
      save: async (name, data, options) => {
        const scope = checked(name);
        const mediaType = normalizeMediaType(options.mediaType);
        this.checkSize(data.byteLength, name);
        return this.service.saveArtifact({
          scope,
          name,
          mediaType,
          data,
          labels: options.labels,
          savedAt: this.#deps.now(),
          savedBy: run.runId,
          key: `${run.idempotencyKey}#${options.saveIndex}`,
        });
      },
      load: async (name, version) => this.service.loadArtifact(checked(name), name, versionOrThrow(version)),
      list: async () => this.service.listArtifacts(artifactScopesOf(owner)),
      versions: async (name) => this.service.artifactVersions(checked(name), name),
      delete: async (name) => (await this.service.deleteArtifact(checked(name), name)) > 0,
      relabel: (name, version, labels) => this.service.labelArtifact(checked(name), name, version, labels),
    };
  }

  async #owner(sessionId: string): Promise<{ app: string; principal: string; sessionId: string }> {
    const session = typeof sessionId === 'string' ? await this.#deps.sessions.getSession(sessionId) : undefined;
    if (!session) throw new SessionNotFoundError(`no session ${JSON.stringify(sessionId)}`);
    return { app: session.app, principal: session.principal, sessionId: session.id };
  }

  #checkName(name: string): void {
    const problem = artifactNameProblem(name);
    if (problem !== undefined) throw new InvalidInputError(problem);
  }
}

function input<T>(check: () => T): T {
  try {
    return check();
  } catch (cause) {
    throw new InvalidInputError((cause as Error).message, { cause });
  }
}

function versionOrThrow(version: unknown): number | undefined {
  if (version === undefined) return undefined;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) {
    throw new TypeError(`version: expected a whole number from 1, got ${String(version)}`);
  }
  return version;
}

function checkVersion(version: unknown): number | undefined {
  return input(() => versionOrThrow(version));
}
