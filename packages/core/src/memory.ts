import type { Label } from './labels.js';

/** One memory a search found: text of an earlier conversation, with the labels of what it was made from. */
export interface MemoryMatch {
  readonly id: string;
  /** The remembered text. */
  readonly text: string;
  /** Who said it: `user` (the input of a run) or `assistant` (the agent's reply). */
  readonly role: 'user' | 'assistant';
  /** The labels the run carried when the text was said (`outside`: it may hold text from outside). */
  readonly labels: readonly Label[];
  /** The session it was said in, and the run. */
  readonly sessionId?: string;
  readonly runId?: string;
  /** When it was said, in ms since the epoch. */
  readonly at: number;
  /** How well it matches the query: higher is better, comparable within one search only. */
  readonly score: number;
}

/** What a search may be told. */
export interface MemorySearchOptions {
  /** The most memories to return. Default 5, at most 50. */
  readonly limit?: number;
}

/**
 * What a tool can ask of the memory service, for the run's principal and its agent's app:
 * memories of earlier conversations, best match first.
 *
 * The labels of the memories found are added to the call's answer (a memory made while a run
 * carried `outside` taints the run that loads it), as reading labelled state does.
 *
 * @example
 * ```ts
 * run: async ({ question }, context) => {
 *   const memories = await context.memory.search(question, { limit: 3 })
 *   return memories.map((memory) => memory.text)
 * }
 * ```
 */
export interface ToolMemory {
  /**
   * Memories matching `query` (words; at most 1,000 characters). Rejects with a TypeError naming
   * the problem for an empty or oversized query.
   */
  search(query: string, options?: MemorySearchOptions): Promise<MemoryMatch[]>;
}

/** Where a context's memory reads from: the runtime's memory service, scoped to the run. */
export interface MemorySource {
  search(query: string, options: MemorySearchOptions): Promise<readonly MemoryMatch[]>;
}

/** A context's memory: searches its source and hands the labels of what it found to the call. */
export class MemoryView implements ToolMemory {
  readonly #source: MemorySource | undefined;
  readonly #onRead: (labels: readonly Label[]) => void;

  constructor(source: MemorySource | undefined, onRead: (labels: readonly Label[]) => void) {
    this.#source = source;
    this.#onRead = onRead;
  }

  async search(query: string, options: MemorySearchOptions = {}): Promise<MemoryMatch[]> {
    if (this.#source === undefined) {
      throw new Error('memory: this call runs without a memory service (run it in a Wardrik runtime)');
    }
    const found = await this.#source.search(query, options);
    for (const match of found) if (match.labels.length > 0) this.#onRead(match.labels);
    return found.map((match) => ({ ...match, labels: [...match.labels] }));
  }
}
