import type { Label, MemoryMatch } from '@wardrik/core';
import type { MemoryIndex, StoredMemory } from '../store/memory-index.js';
import { cosine, type EmbedFunction, embedText, fuseRankings } from './embeddings.js';
import { queryWords } from './words.js';

/** The most memories one search returns. */
export const MAX_MEMORY_RESULTS = 50;
/** How many memories a search returns when it says nothing. */
export const DEFAULT_MEMORY_RESULTS = 5;

/** One message to remember. */
export interface MemoryEntry {
  /** Unique: the same entry added twice is stored once (`<runId>:<index>` for a run's messages). */
  readonly id: string;
  readonly role: 'user' | 'assistant';
  readonly text: string;
  /** The labels the run carried when it was said. */
  readonly labels: readonly Label[];
  readonly at: number;
  readonly runId?: string;
}

/** What a session gives memory: its messages, for its principal in its agent's app. */
export interface SessionContent {
  readonly sessionId: string;
  readonly app: string;
  readonly principal: string;
  readonly entries: readonly MemoryEntry[];
}

/** A search of one principal's memories in one app. */
export interface MemorySearchRequest {
  readonly app: string;
  readonly principal: string;
  /** Words; at most 1,000 characters. */
  readonly query: string;
  /** Default 5, at most 50. */
  readonly limit?: number;
}

/**
 * Long-term memory across sessions (ADK's memory service): what was said in a principal's
 * sessions, searchable by later runs of the same app for the same principal. Implement it to
 * keep memories elsewhere (a vector database); the default, {@link storeMemory}, keeps them in
 * Wardrik's store.
 *
 * Every memory keeps the labels of what it was made from, and a search returns them: the runtime
 * adds them to the answer of the call that searched.
 *
 * @example
 * ```ts
 * const wardrik = await createWardrik({ store, agents: [support], memory: { service: storeMemory(store) } })
 * await wardrik.memory.addSession(session.id)
 * const found = await wardrik.memory.search({ agent: 'support', principal: 'customer-7', query: 'late delivery' })
 * ```
 */
export interface MemoryService {
  /** Remembers a session's entries (those remembered already are left as they are). */
  addSession(content: SessionContent): Promise<{ readonly added: number }>;
  /** The memories best matching the query, best first. */
  search(request: MemorySearchRequest): Promise<MemoryMatch[]>;
  /** Forgets a principal's memories in an app (only a session's, given one). */
  forget?(filter: { readonly app: string; readonly principal: string; readonly sessionId?: string }): Promise<number>;
}

/** Options of {@link storeMemory}. */
export interface StoreMemoryOptions {
  /**
   * Adds semantic search: each memory is embedded when added, and a search ranks memories by the
   * cosine similarity of their embedding to the query's as well as by full-text match, the two
   * rankings fused (reciprocal rank fusion). The semantic side compares the query with every
   * memory of the principal in the app: fine for thousands of memories per principal; beyond,
   * give `createWardrik` a `MemoryService` of your own backed by a vector index. If embedding the
   * query fails, the search falls back to full text.
   */
  readonly embed?: EmbedFunction;
}

/** The limit a search asked for, checked. */
export function memoryLimit(limit: unknown): number {
  if (limit === undefined) return DEFAULT_MEMORY_RESULTS;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_MEMORY_RESULTS) {
    throw new TypeError(`limit: expected a whole number from 1 to ${MAX_MEMORY_RESULTS}, got ${String(limit)}`);
  }
  return limit;
}

/**
 * The memory service kept in Wardrik's store: SQLite full-text search (FTS5, ranked by BM25) on
 * the SQLite store, PostgreSQL full-text search (`ts_rank_cd`) on the PostgreSQL store, a BM25
 * scorer on the memory store; with `embed`, semantic search too.
 *
 * @example
 * ```ts
 * import { embed } from 'ai'
 * const memory = storeMemory(store, {
 *   embed: ({ value }) => embed({ model: openai.embedding('text-embedding-3-small'), value }),
 * })
 * ```
 */
export function storeMemory(store: MemoryIndex, options: StoreMemoryOptions = {}): MemoryService {
  return new StoreMemoryService(store, options);
}

class StoreMemoryService implements MemoryService {
  readonly #store: MemoryIndex;
  readonly #embed: EmbedFunction | undefined;

  constructor(store: MemoryIndex, options: StoreMemoryOptions) {
    this.#store = store;
    this.#embed = options.embed;
  }

  async addSession(content: SessionContent): Promise<{ added: number }> {
    const known = new Set(await this.#store.knownMemories(content.entries.map((entry) => entry.id)));
    const fresh = content.entries.filter((entry) => !known.has(entry.id) && entry.text.trim() !== '');
    const memories: StoredMemory[] = [];
    for (const entry of fresh) {
      memories.push({
        id: entry.id,
        app: content.app,
        principal: content.principal,
        sessionId: content.sessionId,
        ...(entry.runId === undefined ? {} : { runId: entry.runId }),
        role: entry.role,
        text: entry.text,
        labels: entry.labels,
        at: entry.at,
        ...(this.#embed ? { embedding: await embedText(this.#embed, entry.text) } : {}),
      });
    }
    return { added: await this.#store.addMemories(memories) };
  }

  async search(request: MemorySearchRequest): Promise<MemoryMatch[]> {
    const words = queryWords(request.query);
    const limit = memoryLimit(request.limit);
    const { app, principal } = request;
    const wide = this.#embed ? limit * 4 : limit;
    const found = await this.#store.searchMemories({ app, principal, words, limit: wide });
    const embed = this.#embed;
    let vector: Float32Array | undefined;
    if (embed) vector = await embedText(embed, request.query).catch(() => undefined);
    if (vector === undefined) return found.slice(0, limit).map(toMatch);
    const query = vector;
    const semantic = (await this.#store.memoryEmbeddings(app, principal))
      .map(({ id, embedding }) => ({ id, similarity: cosine(query, embedding) }))
      .filter((each) => each.similarity > 0)
      .sort((left, right) => right.similarity - left.similarity)
      .slice(0, wide);
    const fused = fuseRankings([found.map((memory) => memory.id), semantic.map((each) => each.id)]).slice(0, limit);
    const byId = new Map<string, Omit<StoredMemory, 'embedding'>>(found.map((memory) => [memory.id, memory]));
    const missing = fused.map((each) => each.id).filter((id) => !byId.has(id));
    for (const memory of missing.length > 0 ? await this.#store.getMemories(missing) : []) byId.set(memory.id, memory);
    return fused.flatMap(({ id, score }) => {
      const memory = byId.get(id);
      return memory ? [toMatch({ ...memory, score })] : [];
    });
  }

  forget(filter: { app: string; principal: string; sessionId?: string }): Promise<number> {
    return this.#store.deleteMemories(filter);
  }
}

function toMatch(memory: Omit<StoredMemory, 'embedding'> & { readonly score: number }): MemoryMatch {
  return {
    id: memory.id,
    text: memory.text,
    role: memory.role,
    labels: memory.labels,
    ...(memory.sessionId === undefined ? {} : { sessionId: memory.sessionId }),
    ...(memory.runId === undefined ? {} : { runId: memory.runId }),
    at: memory.at,
    score: memory.score,
  };
}
