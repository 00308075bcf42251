import { type Label, mergeLabels } from './labels.js';

/** One version of an artifact, without its bytes. */
export interface ArtifactInfo {
  /** Its name: `report.pdf` (this session's) or `user:avatar.png` (the principal's, in every session of the app). */
  readonly name: string;
  /** 1 for the first save of the name, then 2, 3… */
  readonly version: number;
  /** Its media type, e.g. `text/csv` or `image/png`. */
  readonly mediaType: string;
  /** Its size in bytes. */
  readonly size: number;
  /** The labels it carries: those of the run (and call) that saved it. Loading it adds them to the loader. */
  readonly labels: readonly Label[];
  /** When it was saved, in ms since the epoch. */
  readonly savedAt: number;
  /** Who saved it: a run id, or `person:<name>` for an upload through the API. */
  readonly savedBy: string;
}

/** One version of an artifact with its bytes. */
export interface Artifact extends ArtifactInfo {
  readonly data: Uint8Array;
}

/** How an artifact is saved. */
export interface ArtifactSaveOptions {
  /** Its media type, e.g. `text/plain` or `application/pdf` (checked: `type/subtype`). */
  readonly mediaType: string;
  /** Labels it carries beyond those of the run and the call saving it. */
  readonly labels?: readonly Label[];
}

/**
 * A tool's artifacts: named files kept with the session (or, named `user:…`, with the principal
 * in the agent's app), each save a new version (ADK's artifact service).
 *
 * - **Labels.** A save carries the labels the run and the call carry then (and the tool's `labels`
 *   annotation); loading, listing or reading the versions of an artifact adds its labels to the
 *   call's answer, so text from outside never loses its `outside` label by passing through an
 *   artifact.
 * - **Once.** A save is stored when it resolves (bytes do not go into the journal). A call retried
 *   or repeated after a crash does not store it twice: each save of a call is keyed by the call's
 *   idempotency key and its place among the call's saves, and saving again returns the version
 *   saved the first time.
 * - **Bad input** (a name with `/`, `..`, a control character; a size over the limit; a media type
 *   that is not `type/subtype`) rejects with an error naming the problem, which the model reads as
 *   the call's error.
 *
 * @example
 * ```ts
 * run: async ({ rows }, context) => {
 *   const saved = await context.artifacts.save('report.csv', toCsv(rows), { mediaType: 'text/csv' })
 *   const previous = await context.artifacts.load('report.csv', { version: saved.version - 1 })
 *   return { version: saved.version, changed: previous === undefined }
 * }
 * ```
 */
export interface ToolArtifacts {
  /** Saves bytes (a string is saved as UTF-8) as the next version of `name`. */
  save(name: string, data: Uint8Array | string, options: ArtifactSaveOptions): Promise<ArtifactInfo>;
  /** The latest version of `name`, or the one asked for; undefined if there is none. */
  load(name: string, options?: { readonly version?: number }): Promise<Artifact | undefined>;
  /** The latest version of every artifact the call can see, by name. */
  list(): Promise<ArtifactInfo[]>;
  /** Every version of `name`, oldest first. */
  versions(name: string): Promise<ArtifactInfo[]>;
  /** Deletes every version of `name`; false if there was none. */
  delete(name: string): Promise<boolean>;
}

/** Where a context's artifacts live: the runtime's artifact service, scoped to the run. */
export interface ArtifactSource {
  /**
   * Saves a version. `saveIndex` is the place of this save among the call's saves (0, 1, …): with
   * the call's idempotency key, it makes a repeated save return the version saved the first time.
   */
  save(
    name: string,
    data: Uint8Array,
    options: { readonly mediaType: string; readonly labels: readonly Label[]; readonly saveIndex: number },
  ): Promise<ArtifactInfo>;
  load(name: string, version: number | undefined): Promise<Artifact | undefined>;
  list(): Promise<readonly ArtifactInfo[]>;
  versions(name: string): Promise<readonly ArtifactInfo[]>;
  delete(name: string): Promise<boolean>;
  /** Sets the labels of a version this call saved (to add its answer's labels, known once it answered). */
  relabel(name: string, version: number, labels: readonly Label[]): Promise<void>;
}

const encoder = new TextEncoder();

/** A context's artifacts: labels what it saves with the call's labels, and hands the labels of what it reads to the call. */
export class ArtifactsView implements ToolArtifacts {
  readonly #source: ArtifactSource | undefined;
  readonly #labels: () => readonly Label[];
  readonly #onRead: (labels: readonly Label[]) => void;
  #saves = 0;
  readonly #saved: ArtifactInfo[] = [];

  constructor(
    source: ArtifactSource | undefined,
    options: { labels: () => readonly Label[]; onRead: (labels: readonly Label[]) => void },
  ) {
    this.#source = source;
    this.#labels = options.labels;
    this.#onRead = options.onRead;
  }

  async save(name: string, data: Uint8Array | string, options: ArtifactSaveOptions): Promise<ArtifactInfo> {
    const source = this.#usable();
    if (typeof data !== 'string' && !(data instanceof Uint8Array)) {
      throw new TypeError(
        `artifact ${JSON.stringify(name)}: data must be a Uint8Array or a string, got ${typeof data}`,
      );
    }
    if (typeof options !== 'object' || options === null) {
      throw new TypeError(`artifact ${JSON.stringify(name)}: options must say its mediaType`);
    }
    const bytes = typeof data === 'string' ? encoder.encode(data) : data;
    const labels = mergeLabels(this.#labels(), options.labels);
    const saveIndex = this.#saves++;
    const saved = await source.save(name, bytes, { mediaType: options.mediaType, labels, saveIndex });
    this.#saved.push(saved);
    return saved;
  }

  /**
   * Gives what this call saved the labels of its answer too (called by the runtime once the call
   * answered): an artifact saved by a call whose answer is `outside` is `outside`, even when the
   * tool said so only in its answer.
   */
  async labelSaves(labels: readonly Label[]): Promise<void> {
    if (labels.length === 0 || this.#source === undefined) return;
    for (const saved of this.#saved) {
      if (labels.every((label) => saved.labels.includes(label))) continue;
      await this.#source.relabel(saved.name, saved.version, mergeLabels(saved.labels, labels));
    }
  }

  async load(name: string, options: { readonly version?: number } = {}): Promise<Artifact | undefined> {
    const found = await this.#usable().load(name, options.version);
    if (found) this.#read([found]);
    return found;
  }

  async list(): Promise<ArtifactInfo[]> {
    const found = [...(await this.#usable().list())];
    this.#read(found);
    return found;
  }

  async versions(name: string): Promise<ArtifactInfo[]> {
    const found = [...(await this.#usable().versions(name))];
    this.#read(found);
    return found;
  }

  async delete(name: string): Promise<boolean> {
    return this.#usable().delete(name);
  }

  #read(found: readonly ArtifactInfo[]): void {
    for (const each of found) if (each.labels.length > 0) this.#onRead(each.labels);
  }

  #usable(): ArtifactSource {
    if (this.#source === undefined) {
      throw new Error('artifacts: this call runs without an artifact service (run it in a Wardrik runtime)');
    }
    return this.#source;
  }
}
