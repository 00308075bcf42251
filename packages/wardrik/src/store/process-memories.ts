import { stemOf, wordsOf } from '../memory/words.js';
import type { FoundMemory, MemoryFilter, MemoryIndex, MemoryQuery, StoredMemory } from './memory-index.js';
import { coversApp, type PurgeMemoriesQuery } from './retention-store.js';

interface Indexed {
  readonly memory: StoredMemory;
  /** How often each stem occurs in its text. */
  readonly stems: ReadonlyMap<string, number>;
  readonly length: number;
}

/**
 * Memories kept in this process's memory (the memory store's), searched with BM25 over rough
 * stems: the same ranking, by and large, as SQLite's FTS5.
 */
export class ProcessMemories implements MemoryIndex {
  readonly #check: () => void;
  readonly #memories = new Map<string, Indexed>();

  constructor(options: { check: () => void }) {
    this.#check = options.check;
  }

  async addMemories(memories: readonly StoredMemory[]): Promise<number> {
    this.#check();
    let added = 0;
    for (const memory of memories) {
      if (this.#memories.has(memory.id)) continue;
      const words = wordsOf(memory.text).map(stemOf);
      const stems = new Map<string, number>();
      for (const stem of words) stems.set(stem, (stems.get(stem) ?? 0) + 1);
      this.#memories.set(memory.id, { memory: structuredClone(memory), stems, length: words.length });
      added += 1;
    }
    return added;
  }

  async knownMemories(ids: readonly string[]): Promise<string[]> {
    this.#check();
    return ids.filter((id) => this.#memories.has(id));
  }

  async searchMemories(query: MemoryQuery): Promise<FoundMemory[]> {
    this.#check();
    const owned = [...this.#memories.values()].filter(
      ({ memory }) => memory.app === query.app && memory.principal === query.principal,
    );
    if (owned.length === 0) return [];
    const stems = [...new Set(query.words.map(stemOf))];
    const averageLength = owned.reduce((sum, each) => sum + each.length, 0) / owned.length || 1;
    const idf = new Map(
      stems.map((stem) => {
        const having = owned.filter((each) => each.stems.has(stem)).length;
        return [stem, Math.log(1 + (owned.length - having + 0.5) / (having + 0.5))];
      }),
    );
    const found: FoundMemory[] = [];
    for (const each of owned) {
      let score = 0;
      for (const stem of stems) {
        const frequency = each.stems.get(stem) ?? 0;
        if (frequency === 0) continue;
        score +=
          ((idf.get(stem) ?? 0) * (frequency * 2.2)) /
          (frequency + 1.2 * (0.25 + (0.75 * each.length) / averageLength));
      }
      if (score > 0) found.push({ ...withoutEmbedding(each.memory), score });
    }
    return found.sort((left, right) => right.score - left.score || right.at - left.at).slice(0, query.limit);
  }

  async memoryEmbeddings(app: string, principal: string): Promise<{ id: string; embedding: Float32Array }[]> {
    this.#check();
    return [...this.#memories.values()].flatMap(({ memory }) =>
      memory.app === app && memory.principal === principal && memory.embedding
        ? [{ id: memory.id, embedding: memory.embedding }]
        : [],
    );
  }

  async getMemories(ids: readonly string[]): Promise<Omit<StoredMemory, 'embedding'>[]> {
    this.#check();
    return ids.flatMap((id) => {
      const found = this.#memories.get(id);
      return found ? [withoutEmbedding(found.memory)] : [];
    });
  }

  /** Deletes up to `limit` memories said before `before`, of the selected apps, oldest first; returns how many. */
  purgeBefore(query: PurgeMemoriesQuery): number {
    this.#check();
    const old = [...this.#memories.values()]
      .filter(({ memory }) => memory.at < query.before && coversApp(query.apps, memory.app))
      .sort((a, b) => a.memory.at - b.memory.at)
      .slice(0, query.limit);
    for (const { memory } of old) this.#memories.delete(memory.id);
    return old.length;
  }

  async deleteMemories(filter: MemoryFilter): Promise<number> {
    this.#check();
    let deleted = 0;
    for (const [id, { memory }] of this.#memories) {
      if (memory.app !== filter.app || memory.principal !== filter.principal) continue;
      if (filter.sessionId !== undefined && memory.sessionId !== filter.sessionId) continue;
      this.#memories.delete(id);
      deleted += 1;
    }
    return deleted;
  }
}

function withoutEmbedding(memory: StoredMemory): Omit<StoredMemory, 'embedding'> {
  const { embedding: _embedding, ...rest } = memory;
  return structuredClone(rest);
}
