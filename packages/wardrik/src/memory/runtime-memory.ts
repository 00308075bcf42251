import type { MemoryMatch, MemorySource } from '@wardrik/core';
import type { Agent } from '../agent.js';
import { InvalidInputError, SessionNotFoundError } from '../errors.js';
import type { Store } from '../store/store.js';
import { type MemoryService, memoryLimit } from './memory-service.js';
import { runMemories } from './run-memories.js';
import { queryWords } from './words.js';

/** A search through the runtime: by agent (its app) and principal. */
export interface MemorySearch {
  /** The agent whose app's memories to search. */
  readonly agent: string;
  /** Whose memories. Default `local`. */
  readonly principal?: string;
  readonly query: string;
  /** Default 5, at most 50. */
  readonly limit?: number;
}

/** What the runtime's memory needs. */
export interface RuntimeMemoryDeps {
  readonly service: MemoryService;
  readonly store: Store;
  agent(name: string): Agent;
}

/**
 * Memory as the runtime offers it (`wardrik.memory`): adds sessions to the memory service, and
 * searches it for a principal and an agent's app, checking what it is given (an
 * `InvalidInputError` naming the field).
 */
export class RuntimeMemory {
  readonly service: MemoryService;
  readonly #deps: RuntimeMemoryDeps;

  constructor(deps: RuntimeMemoryDeps) {
    this.service = deps.service;
    this.#deps = deps;
  }

  /**
   * Adds what was said in a session (the input and the replies of each of its runs that is not
   * running, each with the labels the run carried then) to memory, for the session's principal in
   * its agent's app. Adding a session again adds only what is new.
   *
   * @example
   * ```ts
   * const { added } = await wardrik.memory.addSession(session.id)
   * ```
   */
  async addSession(sessionId: string): Promise<{ added: number }> {
    const store = this.#deps.store;
    const session = typeof sessionId === 'string' ? await store.getSession(sessionId) : undefined;
    if (!session) throw new SessionNotFoundError(`no session ${JSON.stringify(sessionId)}`);
    const entries = [];
    for (const runId of await store.sessionRuns(session.id)) {
      const row = await store.getRun(runId);
      // A run still going is added once it ended; one this Wardrik cannot load (it needs attention) is left out.
      if (!row || row.status === 'running' || row.attention !== undefined) continue;
      entries.push(...runMemories(runId, await store.loadJournal(runId)));
    }
    const { added } = await this.service.addSession({
      sessionId: session.id,
      app: session.app,
      principal: session.principal,
      entries,
    });
    return { added };
  }

  /**
   * Adds what one run said to memory, if the run is in a session (what `addSessions:
   * 'after-each-run'` does when a run ends). Resolves to how many memories were new.
   */
  async addRun(runId: string): Promise<{ added: number }> {
    const store = this.#deps.store;
    const journal = await store.loadJournal(runId);
    const started = journal.find((stored) => stored.record.type === 'run-started')?.record;
    const sessionId = started?.type === 'run-started' ? started.session : undefined;
    if (sessionId === undefined) return { added: 0 };
    const session = await store.getSession(sessionId);
    if (!session) return { added: 0 };
    return this.service.addSession({
      sessionId,
      app: session.app,
      principal: session.principal,
      entries: runMemories(runId, journal),
    });
  }

  /**
   * Searches a principal's memories in an agent's app, best match first.
   *
   * @example
   * ```ts
   * const found = await wardrik.memory.search({ agent: 'support', principal: 'customer-7', query: 'late delivery' })
   * // [{ text, role, labels, sessionId, runId, at, score }, …]
   * ```
   */
  async search(search: MemorySearch): Promise<MemoryMatch[]> {
    const agent = this.#deps.agent(search.agent);
    const principal = search.principal ?? 'local';
    if (typeof principal !== 'string' || principal === '') {
      throw new InvalidInputError('principal: expected a non-empty string');
    }
    try {
      queryWords(search.query);
      memoryLimit(search.limit);
    } catch (cause) {
      throw new InvalidInputError((cause as Error).message, { cause });
    }
    return this.service.search({
      app: agent.app,
      principal,
      query: search.query,
      ...(search.limit === undefined ? {} : { limit: search.limit }),
    });
  }

  /** Forgets a principal's memories in an agent's app (only a session's, given one). */
  async forget(filter: { agent: string; principal?: string; sessionId?: string }): Promise<number> {
    const agent = this.#deps.agent(filter.agent);
    if (!this.service.forget) throw new InvalidInputError('this memory service cannot forget memories');
    return this.service.forget({
      app: agent.app,
      principal: filter.principal ?? 'local',
      ...(filter.sessionId === undefined ? {} : { sessionId: filter.sessionId }),
    });
  }

  /** What a call's `context.memory` searches: the run's principal's memories in its app. */
  sourceFor(run: { readonly app: string; readonly principal: string }): MemorySource {
    return {
      search: (query, options) => {
        queryWords(query); // a TypeError naming the problem, for the model to read
        memoryLimit(options.limit);
        return this.service.search({
          app: run.app,
          principal: run.principal,
          query,
          ...(options.limit === undefined ? {} : { limit: options.limit }),
        });
      },
    };
  }
}
