import type { ArtifactSource, MemorySource } from '@wardrik/core';
import type { Agent } from '../agent.js';
import type { ArtifactService } from '../artifacts/runtime-artifacts.js';
import { DEFAULT_MAX_ARTIFACT_BYTES, RuntimeArtifacts } from '../artifacts/runtime-artifacts.js';
import { InvalidInputError } from '../errors.js';
import type { EmbedFunction } from '../memory/embeddings.js';
import { type MemoryService, storeMemory } from '../memory/memory-service.js';
import { RuntimeMemory } from '../memory/runtime-memory.js';
import type { Store } from '../store/store.js';
import type { CallServices, CallServicesRequest } from './calls/attempt-call.js';

/** How the runtime keeps memories (see `MemoryService`). */
export interface MemoryOptions {
  /** Where memories are kept. Default: the store (`storeMemory(store, { embed })`). */
  readonly service?: MemoryService;
  /** Adds semantic search to the default service (see `storeMemory`). */
  readonly embed?: EmbedFunction;
  /**
   * `after-each-run`: when a run in a session ends, what it said is added to memory (in the
   * background, on the node that drove it; `wardrik.memory.addSession` adds anything missed).
   * `manual` (default): only `wardrik.memory.addSession` (or `POST /v1/sessions/{id}/memory`) adds.
   */
  readonly addSessions?: 'after-each-run' | 'manual';
  /** Told when adding a run to memory after it ended failed. Default: a warning on stderr. */
  readonly onError?: (error: unknown, runId: string) => void;
}

/** How the runtime keeps artifacts (see `ArtifactService`). */
export interface ArtifactOptions {
  /** Where artifacts are kept. Default: the store (SQLite BLOBs, PostgreSQL bytea, memory). */
  readonly service?: ArtifactService;
  /** The largest artifact, in bytes. Default 10 MiB. */
  readonly maxBytes?: number;
}

/** The runtime's memory and artifacts, and what each call's context gets of them. */
export class Services implements CallServices {
  readonly memory: RuntimeMemory;
  readonly artifacts: RuntimeArtifacts;
  readonly #remember: boolean;
  readonly #onError: (error: unknown, runId: string) => void;
  readonly #adding = new Set<Promise<unknown>>();

  constructor(options: {
    store: Store;
    memory?: MemoryOptions | undefined;
    artifacts?: ArtifactOptions | undefined;
    now: () => number;
    agent(name: string): Agent;
  }) {
    const { store, memory = {}, artifacts = {} } = options;
    if (
      memory.addSessions !== undefined &&
      memory.addSessions !== 'after-each-run' &&
      memory.addSessions !== 'manual'
    ) {
      throw new InvalidInputError(
        `memory.addSessions: expected 'after-each-run' or 'manual', got ${JSON.stringify(memory.addSessions)}`,
      );
    }
    const maxBytes = artifacts.maxBytes ?? DEFAULT_MAX_ARTIFACT_BYTES;
    if (!Number.isInteger(maxBytes) || maxBytes < 1) {
      throw new InvalidInputError(`artifacts.maxBytes: expected a whole number of bytes, got ${String(maxBytes)}`);
    }
    this.memory = new RuntimeMemory({
      service: memory.service ?? storeMemory(store, memory.embed ? { embed: memory.embed } : {}),
      store,
      agent: options.agent,
    });
    this.artifacts = new RuntimeArtifacts({
      service: artifacts.service ?? store,
      sessions: store,
      maxBytes,
      now: options.now,
    });
    this.#remember = memory.addSessions === 'after-each-run';
    this.#onError =
      memory.onError ??
      ((error, runId) => {
        process.emitWarning(`adding run ${runId} to memory failed: ${(error as Error).message ?? String(error)}`);
      });
  }

  /** What one call's context gets of memory: the run's principal's and app's. */
  memoryFor(request: CallServicesRequest): MemorySource {
    return this.memory.sourceFor(request);
  }

  /** What one call's context gets of artifacts: its session's and its principal's. */
  artifactsFor(request: CallServicesRequest): ArtifactSource {
    return this.artifacts.sourceFor(request);
  }

  /** Whether runs are added to memory as they end (`addSessions: 'after-each-run'`): then call `runEnded`. */
  get remembersRuns(): boolean {
    return this.#remember;
  }

  /** A run ended: with `addSessions: 'after-each-run'`, it is added to memory. */
  runEnded(runId: string): void {
    if (!this.#remember) return;
    const adding = this.memory.addRun(runId).catch((error) => this.#onError(error, runId));
    this.#adding.add(adding);
    void adding.finally(() => this.#adding.delete(adding));
  }

  /** Resolves once the runs being added to memory are added (before the store closes). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#adding]);
  }
}
