import type { FoundMemory, MemoryFilter, MemoryIndex, MemoryQuery, StoredMemory } from '../memory-index.js';
import * as memories from './memory-queries.js';
import type { PostgresExecutor } from './postgres-executor.js';

/** Memories on PostgreSQL (full-text search, ranked with the server's word statistics). */
export class PostgresMemories implements MemoryIndex {
  readonly #executor: PostgresExecutor;
  /** How common words are among memories, as the server's statistics say (read once a minute). */
  readonly #frequencies = new memories.MemoryFrequencies();

  constructor(executor: PostgresExecutor) {
    this.#executor = executor;
  }

  async addMemories(list: readonly StoredMemory[]): Promise<number> {
    return this.#executor.call('adding memories', (client) => memories.addMemories(client, list), { retry: true });
  }

  async knownMemories(ids: readonly string[]): Promise<string[]> {
    return this.#executor.call('reading memories', (client) => memories.knownMemories(client, ids), { retry: true });
  }

  async searchMemories(query: MemoryQuery): Promise<FoundMemory[]> {
    return this.#executor.call(
      'searching memories',
      (client) => memories.searchMemories(client, query, this.#frequencies),
      {
        retry: true,
      },
    );
  }

  async memoryEmbeddings(app: string, principal: string): Promise<{ id: string; embedding: Float32Array }[]> {
    return this.#executor.call('reading embeddings', (client) => memories.memoryEmbeddings(client, app, principal), {
      retry: true,
    });
  }

  async getMemories(ids: readonly string[]): Promise<Omit<StoredMemory, 'embedding'>[]> {
    return this.#executor.call('reading memories', (client) => memories.getMemories(client, ids), { retry: true });
  }

  async deleteMemories(filter: MemoryFilter): Promise<number> {
    return this.#executor.call('deleting memories', (client) => memories.deleteMemories(client, filter), {
      retry: true,
    });
  }
}
